import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createKeytarCredentialStore } from '../../../main/credentials/credential-store';
import { createProfileStore, PROFILES_FILE } from '../../../main/credentials/profile-store';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import type { SimulatorOptions } from '../../../simulator/types';
import { runCliHere, type CliHereOptions } from '../../support/cli-in-process';
import { parseJsonLines } from '../../support/cli-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';
import { writeContractManifest } from './cli-fixtures';

/**
 * Whose secret `watch` sends where. The command line runs in the test's process; it and the
 * services of a test share one virtual clock, so its reads take no real time.
 */
let work: TempFolder;
let clock: VirtualClock;
const services: Simulator[] = [];

beforeAll(() => {
  work = makeTempFolder('a3-watch-');
});
beforeEach(() => {
  clock = new VirtualClock({ startAt: Date.now() });
});
afterAll(async () => {
  for (const s of services) await s.close();
  work.remove();
});

/** A simulator on the test's clock. */
async function startSimulator(options: SimulatorOptions): Promise<Simulator> {
  return (await startVirtualSimulator(options, clock)).sim;
}

function runCli(args: readonly string[], options: Pick<CliHereOptions, 'credentials' | 'env'>) {
  return runCliHere(args, { clock, ...options });
}

async function sendTo(
  service: Simulator,
  dataDir: string,
  creds: { clientId: string; clientSecret: string },
  index: number,
) {
  const folder = makeTempFolder(`a3-m${index}-`);
  const manifest = await writeContractManifest(folder, {
    count: 1,
    pages: 0,
    seed: 70 + index,
    referencePrefix: `W${index}-`,
  });
  const sent = await runCli(['send', manifest.path, '--base-url', service.baseUrl, '--data-dir', dataDir], {
    credentials: creds,
  });
  expect(sent.code, sent.stdout + sent.stderr).toBe(0);
}

const PROD = {
  clientId: DEMO_CLIENT.clientId,
  clientSecret: 'production-only-secret',
  scopes: DEMO_CLIENT.scopes,
};

it('env credentials are only used at their own address: a same-client-id production is watched with its saved profile, and never gets the sandbox secret', async () => {
  const sandbox = await startSimulator({ seed: 51 });
  const production = await startSimulator({ seed: 52, clients: [PROD] });
  services.push(sandbox, production);
  const dataDir = work.file('data1');
  await sendTo(sandbox, dataDir, DEMO_CLIENT, 1);
  await sendTo(production, dataDir, PROD, 2);
  const profiles = createProfileStore({ dataDir, credentials: createKeytarCredentialStore() });
  const saved = await profiles.save({
    name: 'Production',
    baseUrl: production.baseUrl,
    clientId: PROD.clientId,
    secret: PROD.clientSecret,
  });
  expect(saved.ok, JSON.stringify(saved)).toBe(true);
  for (const s of [sandbox, production]) {
    for (const r of s.state.requests()) s.complete(r.id);
  }
  await clock.advance(60_000);
  const tokenCallsBefore = production.state.calls().filter((c) => c.operation === 'token').length;
  const watched = await runCli(['watch', '--data-dir', dataDir, '--json', '--base-url', sandbox.baseUrl], {
    credentials: DEMO_CLIENT,
    env: {},
  });
  const prodTokens = production.state
    .calls()
    .filter((c) => c.operation === 'token')
    .slice(tokenCallsBefore);
  expect(prodTokens.every((c) => c.status === 200)).toBe(true);
  expect(watched.code).toBe(0);
  await profiles.delete('Production');
}, 30_000);

it('env credentials for one of two clients: the other is named as untracked, the first is watched to the end, no secret on stderr', async () => {
  const a = await startSimulator({ seed: 61 });
  const OTHER = { clientId: 'other-client', clientSecret: 'other-secret-xyz', scopes: DEMO_CLIENT.scopes };
  const b = await startSimulator({ seed: 62, clients: [OTHER] });
  services.push(a, b);
  const dataDir = work.file('data2');
  await sendTo(a, dataDir, DEMO_CLIENT, 3);
  await sendTo(b, dataDir, OTHER, 4);
  for (const s of [a, b]) {
    for (const r of s.state.requests()) s.complete(r.id);
  }
  await clock.advance(60_000);
  const callsAtBBefore = b.state.calls().length;
  const watched = await runCli(['watch', '--data-dir', dataDir, '--json', '--base-url', a.baseUrl], {
    credentials: DEMO_CLIENT,
  });
  const events = parseJsonLines(watched.stdout);
  expect(events.some((e) => e.type === 'untracked' && e.clientId === 'other-client')).toBe(true);
  expect(events.filter((e) => e.type === 'completed').length).toBe(1);
  expect(watched.code).not.toBe(0);
  expect(watched.stderr + watched.stdout).not.toContain(DEMO_CLIENT.clientSecret);
  // The untracked service hears nothing from watch: not even a token request with another client's secret.
  expect(b.state.calls().slice(callsAtBBefore)).toEqual([]);
}, 30_000);

it('the environment secret never goes to an address read from the data folder alone: without --base-url the batch is named untracked and its service gets no token request', async () => {
  const service = await startSimulator({ seed: 71 });
  services.push(service);
  const dataDir = work.file('data4');
  await sendTo(service, dataDir, DEMO_CLIENT, 5);
  const tokenCallsBefore = service.state.calls().filter((c) => c.operation === 'token').length;
  const watched = await runCli(['watch', '--data-dir', dataDir, '--json'], {
    credentials: DEMO_CLIENT,
  });
  const events = parseJsonLines(watched.stdout);
  expect(events.some((e) => e.type === 'untracked' && e.clientId === DEMO_CLIENT.clientId)).toBe(true);
  expect(watched.code).toBe(1);
  expect(watched.stdout + watched.stderr).toContain(`--base-url ${service.baseUrl}`);
  expect(service.state.calls().filter((c) => c.operation === 'token').length).toBe(tokenCallsBefore);
}, 30_000);

it('a saved secret never goes to an address planted in profiles.json: the planted service gets no token request and watch says why', async () => {
  const planted = await startSimulator({ seed: 81 });
  services.push(planted);
  const dataDir = work.file('data5');
  // A batch with an open request at the planted service (someone with write access to the data folder).
  await sendTo(planted, dataDir, DEMO_CLIENT, 6);
  const profiles = createProfileStore({ dataDir, credentials: createKeytarCredentialStore() });
  const saved = await profiles.save({
    name: 'Office',
    baseUrl: 'https://sign.example.com',
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  expect(saved.ok, JSON.stringify(saved)).toBe(true);
  // The settings file is changed behind the app's back: "Office" now points at the planted service.
  const file = join(dataDir, PROFILES_FILE);
  writeFileSync(file, readFileSync(file, 'utf8').replace('https://sign.example.com', planted.baseUrl));
  const tokenCallsBefore = planted.state.calls().filter((c) => c.operation === 'token').length;
  const watched = await runCli(['watch', '--data-dir', dataDir, '--json'], { credentials: null });
  await profiles.delete('Office');
  expect(watched.code).toBe(1);
  expect(watched.stdout + watched.stderr).toContain('was saved for another service address or client id');
  expect(watched.stdout + watched.stderr).not.toContain(DEMO_CLIENT.clientSecret);
  expect(planted.state.calls().filter((c) => c.operation === 'token').length).toBe(tokenCallsBefore);
}, 30_000);

it('watch with nothing bound and nothing open ends at once with 0', async () => {
  const dataDir = work.file('data3');
  const watched = await runCli(['watch', '--data-dir', dataDir, '--json'], { credentials: null });
  expect(watched.code).toBe(0);
}, 30_000);
