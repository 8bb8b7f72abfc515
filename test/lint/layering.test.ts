import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

/** The messages of the layering rules for `code` placed at `filePath` (nothing is written to disk). */
async function layeringProblems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter(
      (message) =>
        message.ruleId === 'no-restricted-imports' ||
        message.ruleId === 'no-restricted-globals' ||
        message.ruleId === 'layers/ordered',
    )
    .map((message) => message.message);
}

describe('the layering lint rules (ARCHITECTURE.md)', () => {
  it.each([
    ['main/engine/example.ts', "import { app } from 'electron';\nexport const name = app.name;\n"],
    ['main/engine/example.ts', "import { app } from 'electron/main';\nexport const name = app.name;\n"],
    ['shared/domain/example.ts', "import { setTimeout } from 'timers';\nexport const wait = setTimeout;\n"],
    [
      'shared/domain/example.ts',
      "import { performance } from 'perf_hooks';\nexport const now = performance.now();\n",
    ],
    [
      'shared/domain/example.ts',
      "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
    ],
    ['shared/domain/example.ts', 'export const bytes = Buffer.from("x");\n'],
    ['renderer/src/example.ts', 'export const home = process.env.HOME;\n'],
    ['renderer/src/example.tsx', "import { request } from 'undici';\nexport const call = request;\n"],
    [
      'renderer/src/example.ts',
      "import { BatchStore } from '../../main/store/batch-store';\nexport const s = BatchStore;\n",
    ],
    ['preload/example.ts', "import keytar from 'keytar';\nexport const k = keytar;\n"],
    ['main/app/example.ts', "import { tray } from '../shell/tray';\nexport const t = tray;\n"],
    [
      'simulator/example.ts',
      "import { wireSchemas } from '../shared/service/wire';\nexport const s = wireSchemas;\n",
    ],
    [
      'renderer/browser-host-bridge.ts',
      "import { BRIDGE_PATH } from '../main/browser-host/host-server';\nexport const p = BRIDGE_PATH;\n",
    ],
    // Layers inside main/ and shared/ (scripts/lint/layers.js): only lower layers, type imports too.
    [
      'main/store/example.ts',
      "import { SendEngine } from '../engine/send-engine';\nexport const e = SendEngine;\n",
    ],
    [
      'main/domain/example.ts',
      "import type { ServiceClient } from '../client/service-client';\nexport type C = ServiceClient;\n",
    ],
    [
      'main/engine/example.ts',
      "import { StatusPoller } from '../tracking/status-poller';\nexport const p = StatusPoller;\n",
    ],
    ['main/credentials/example.ts', "export { openDesk } from '../app/desk-core';\n"],
    ['main/client/example.ts', "export const load = () => import('../credentials/profile-store');\n"],
    ['main/example.ts', 'export const loose = 1;\n'],
    ['main/odd-folder/example.ts', 'export const loose = 1;\n'],
    [
      'shared/service/example.ts',
      "import { invokeChannels } from '../ipc/contract';\nexport const c = invokeChannels;\n",
    ],
    // The one result shape sits below every other shared folder: it imports none of them.
    [
      'shared/base/example.ts',
      "import type { MessageId } from '../i18n/catalog';\nexport type M = MessageId;\n",
    ],
    // Every way of naming a module is checked, not only `import … from`.
    ['main/domain/example.ts', 'export const load = () => import(`../engine/send-engine`);\n'],
    [
      'main/domain/example.ts',
      "const where = '../engine/send-engine';\nexport const load = () => import(where);\n",
    ],
    ['main/domain/example.ts', 'export const load = (name: string) => import(`../engine/${name}`);\n'],
    [
      'main/domain/example.ts',
      "import engine = require('../engine/send-engine');\nexport const e = engine;\n",
    ],
    ['main/domain/example.ts', "export type E = import('../engine/send-engine').SendEngine;\n"],
    [
      'main/domain/example.ts',
      "declare module '../engine/send-engine' {\n  interface SendEngine {\n    extra: true;\n  }\n}\nexport {};\n",
    ],
    [
      'main/domain/example.ts',
      "import { SendEngine } from '../../main/engine/send-engine';\nexport const e = SendEngine;\n",
    ],
    ['main/domain/example.ts', "import * as all from '..';\nexport const a = all;\n"],
    [
      'main/domain/example.mts',
      "import { SendEngine } from '../engine/send-engine';\nexport const e = SendEngine;\n",
    ],
    // Product code imports no test, tool or page; only the app layer starts the demo simulator.
    [
      'main/engine/example.ts',
      "import { batchOfPdfs } from '../../test/support/batch-harness';\nexport const b = batchOfPdfs;\n",
    ],
    [
      'main/engine/example.ts',
      "import { startSimulator } from '../../simulator/simulator';\nexport const s = startSimulator;\n",
    ],
    [
      'shared/domain/example.ts',
      "import { openDesk } from '../../main/app/desk-core';\nexport const o = openDesk;\n",
    ],
    // Screens and components call the store's actions; only the store reaches the bridge.
    ['renderer/src/screens/example.tsx', "import { desk } from '../bridge';\nexport const d = desk;\n"],
    [
      'renderer/src/components/example.tsx',
      "import { BridgeError } from '../bridge';\nexport const e = BridgeError;\n",
    ],
    [
      'renderer/src/screens/example.tsx',
      "import type { HostBridge } from '../../../shared/ipc/bridge';\nexport type B = HostBridge;\n",
    ],
    // …and keep every rule of browser code besides.
    [
      'renderer/src/components/example.tsx',
      "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
    ],
  ])('refuses in %s: %s', async (filePath, code) => {
    expect(await layeringProblems(filePath, code)).not.toEqual([]);
  });

  it.each([
    ['main/shell/example.ts', "import { app } from 'electron';\nexport const name = app.name;\n"],
    [
      'main/engine/example.ts',
      "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
    ],
    ['main/shell/example.ts', "import { tray } from './tray';\nexport const t = tray;\n"],
    ['shared/domain/example.ts', "import { z } from 'zod';\nexport const schema = z.string();\n"],
    ['simulator/example.ts', "import { createServer } from 'node:http';\nexport const s = createServer;\n"],
    [
      'renderer/browser-host-bridge.ts',
      "import { BRIDGE_PATH } from '../shared/ipc/browser-host-protocol';\nexport const p = BRIDGE_PATH;\n",
    ],
    [
      'preload/example.ts',
      "import { contextBridge } from 'electron';\nexport const bridge = contextBridge;\n",
    ],
    [
      'main/engine/example.ts',
      "import { applyBatchEvent } from '../domain/apply-batch-event';\nexport const a = applyBatchEvent;\n",
    ],
    [
      'main/app/example.ts',
      "import { SendEngine } from '../engine/send-engine';\nexport const e = SendEngine;\n",
    ],
    ['main/cli/example.ts', "import { openDesk } from '../app/desk-core';\nexport const o = openDesk;\n"],
    ['main/domain/example.ts', "import { words } from '../base/words';\nexport const w = words;\n"],
    [
      'shared/ipc/example.ts',
      "import { batchDefaultsSchema } from '../domain/batch';\nexport const s = batchDefaultsSchema;\n",
    ],
    ['shared/i18n/example.ts', "import { ok } from '../base/result';\nexport const o = ok;\n"],
    [
      'renderer/src/screens/example.tsx',
      "import { useDesk } from '../state/store';\nexport const start = useDesk.getState().actions.sending.start;\n",
    ],
    ['renderer/src/state/example.ts', "import { desk } from '../bridge';\nexport const d = desk;\n"],
    [
      'main/app/example.ts',
      "import { startSimulator } from '../../simulator/simulator';\nexport const s = startSimulator;\n",
    ],
    ['main/credentials/example.ts', "const KEYTAR = 'keytar';\nexport const load = () => import(KEYTAR);\n"],
    ['main/engine/example.ts', 'export const load = () => import(`../domain/batch-state`);\n'],
  ])('allows in %s: %s', async (filePath, code) => {
    expect(await layeringProblems(filePath, code)).toEqual([]);
  });
});

describe('the layers rule wherever ESLint runs', () => {
  it('measures paths from the repository, not from the folder ESLint was started in', async () => {
    const inDomain = new ESLint({ cwd: `${process.cwd()}/main/domain` });
    const [result] = await inDomain.lintText(
      "import { SendEngine } from '../engine/send-engine';\nexport const e = SendEngine;\n",
      { filePath: `${process.cwd()}/main/domain/example.ts` },
    );
    expect(result?.messages.map((message) => message.ruleId)).toContain('layers/ordered');
  });
});
