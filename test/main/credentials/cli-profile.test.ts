import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKeytarCredentialStore,
  KEYCHAIN_UNAVAILABLE_MESSAGE,
} from '../../../main/credentials/credential-store';
import { createProfileStore, type ProfileStore } from '../../../main/credentials/profile-store';
import { KEYCHAIN_ID_FILE, ownerAccount } from '../../../main/credentials/folder-identity';
import { keychainIdOf } from '../../support/keychain-accounts';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../../simulator/simulator';
import { makePdfBytes, makeTempFolder, type TempFolder } from '../../support/pdf-files';
import {
  environmentWithoutDbus,
  filesContaining,
  requireKeychain,
  runNode,
  type ChildRun,
} from './keychain-fixtures';

/**
 * `send --profile NAME` and `watch --profile NAME` end to end: the command line runs as its own
 * process, reads the profile from the data folder's profiles.json and the secret from the real
 * keychain (under the app's own service name), and sends to the simulator. The profile name is
 * unique to the run, so a developer's own profiles are never touched.
 */
const PROFILE = `demo-${randomBytes(4).toString('hex')}`;
let sim: Simulator;
let files: TempFolder;
let dataDir: string;
let manifest: string;
let profiles: ProfileStore;

/** The command line, as `npm run cli` starts it, without credentials in its environment. */
function cli(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<ChildRun> {
  const clean = { ...env };
  delete clean.SIGNING_CLIENT_ID;
  delete clean.SIGNING_CLIENT_SECRET;
  delete clean.DESK_LOG;
  return runNode(['--import', 'tsx', 'main/cli/index.ts', ...args], clean);
}

function jsonLines(stdout: string): { type: string; [key: string]: unknown }[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string });
}

beforeAll(async () => {
  files = makeTempFolder('desk-cli-profile-');
  dataDir = files.file('data');
  sim = await startSimulator({ seed: 11, evidenceDelayMs: 0 });
  const rows = ['document,external_reference,participant_type,role,name,email'];
  for (const number of [1, 2]) {
    writeFileSync(files.file(`contract-${number}.pdf`), await makePdfBytes(`Contract ${number}`));
    rows.push(
      `contract-${number}.pdf,PROFILE-${number},signer,Employee,Employee ${number},employee.${number}@example.com`,
    );
  }
  manifest = files.file('manifest.csv');
  writeFileSync(manifest, `${rows.join('\n')}\n`);

  const credentials = createKeytarCredentialStore();
  await requireKeychain(credentials);
  profiles = createProfileStore({ dataDir, credentials });
  const saved = await profiles.save({
    name: PROFILE,
    baseUrl: sim.baseUrl,
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  if (!saved.ok) throw new Error(saved.error.message);
}, 60_000);

afterAll(async () => {
  await profiles?.delete(PROFILE);
  await profiles?.delete(`${PROFILE}-no-secret`);
  // The record of which folder owns the data folder's keychain id (the app's own service name).
  if (dataDir && existsSync(join(dataDir, KEYCHAIN_ID_FILE))) {
    await createKeytarCredentialStore().deleteSecret(ownerAccount(keychainIdOf(dataDir)));
  }
  await sim?.close();
  files?.remove();
});

describe('the command line with --profile', () => {
  it('sends a manifest with a saved profile: settings from the data folder, secret from the keychain', async () => {
    const run = await cli(['send', manifest, '--profile', PROFILE, '--data-dir', dataDir, '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const summary = jsonLines(run.stdout).at(-1);
    expect(summary).toMatchObject({ type: 'summary', state: 'finished', prepared: 2, failed: 0, total: 2 });
    expect(sim.state.countByExternalReference()).toEqual({ 'PROFILE-1': 1, 'PROFILE-2': 1 });
    const clients = new Set(sim.state.calls().map((call) => call.clientId));
    expect([...clients]).toEqual([DEMO_CLIENT.clientId]);
    expect(run.stdout + run.stderr).not.toContain(DEMO_CLIENT.clientSecret);
  }, 60_000);

  it('watches the sent requests to completion with the same profile', async () => {
    for (const request of sim.state.requests()) sim.complete(request.id);
    const run = await cli(['watch', '--profile', PROFILE, '--data-dir', dataDir, '--json']);
    expect(run.code).toBe(0);
    expect(jsonLines(run.stdout).at(-1)).toEqual({
      type: 'summary',
      open: 0,
      gone: 0,
      ended: 0,
      unknownStatus: 0,
    });
  }, 60_000);

  it('names a profile that does not exist', async () => {
    const run = await cli(['send', manifest, '--profile', 'nobody', '--data-dir', dataDir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('There is no connection profile named "nobody".');
  }, 30_000);

  it('says when the profile has no saved secret', async () => {
    const saved = await profiles.save({ name: `${PROFILE}-no-secret`, baseUrl: sim.baseUrl, clientId: 'x' });
    expect(saved.ok).toBe(true);
    const run = await cli(['send', manifest, '--profile', `${PROFILE}-no-secret`, '--data-dir', dataDir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`The connection profile "${PROFILE}-no-secret" has no saved client secret.`);
  }, 30_000);

  it('refuses --profile together with --base-url', async () => {
    const run = await cli([
      'send',
      manifest,
      '--profile',
      PROFILE,
      '--base-url',
      sim.baseUrl,
      '--data-dir',
      dataDir,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Use either --profile or --base-url, not both');
  }, 30_000);

  it('explains what to install when no keychain can be reached, and sends nothing', async () => {
    const before = sim.state.calls().length;
    const run = await cli(
      ['send', manifest, '--profile', PROFILE, '--data-dir', dataDir],
      environmentWithoutDbus(),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(KEYCHAIN_UNAVAILABLE_MESSAGE);
    expect(sim.state.calls().length).toBe(before);
  }, 30_000);

  it('leaves the secret in no file of the data folder', () => {
    expect(filesContaining(dataDir, [DEMO_CLIENT.clientSecret])).toEqual([]);
  });
});
