import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../../simulator/simulator';
import { bundleCli, killAllCli, parseJsonLines, runCli } from '../../support/cli-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { writeContractManifest } from './cli-fixtures';

/**
 * Two services, one data folder: `send` to each, then one `watch` tracks every batch at its
 * own address (PRODUCT.md "Connections") until every request is final; none is read at the
 * other service, none is marked gone.
 */
import { createKeytarCredentialStore } from '../../../main/credentials/credential-store';
import { createProfileStore } from '../../../main/credentials/profile-store';

let bundle: TempFolder;
let work: TempFolder;
let cliPath: string;
let services: Simulator[] = [];

beforeAll(async () => {
  bundle = makeTempFolder('desk-watch-bundle-');
  work = makeTempFolder('desk-watch-two-');
  cliPath = await bundleCli(bundle.path);
}, 60_000);

afterAll(async () => {
  await killAllCli();
  for (const service of services) await service.close();
  bundle.remove();
  work.remove();
});

it('send to two services, then one watch: every request completed at its own service, none gone', async () => {
  services = [await startSimulator({ seed: 31 }), await startSimulator({ seed: 32 })];
  const dataDir = work.file('data');
  const manifests = [];
  for (const [index, service] of services.entries()) {
    const folder = makeTempFolder(`desk-watch-m${index}-`);
    const manifest = await writeContractManifest(folder, {
      count: 2,
      pages: 0,
      seed: 40 + index,
      referencePrefix: `S${index}-`,
    });
    manifests.push(manifest);
    const sent = await runCli(
      cliPath,
      ['send', manifest.path, '--base-url', service.baseUrl, '--data-dir', dataDir],
      {
        credentials: DEMO_CLIENT,
      },
    );
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
  }
  for (const service of services) {
    for (const request of service.state.requests()) service.complete(request.id);
    service.clock.advance(60_000);
  }

  // The first service's secret from the environment (only where --base-url says), the second's
  // from a saved profile for its address (secret in the keychain).
  const profiles = createProfileStore({ dataDir, credentials: createKeytarCredentialStore() });
  const saved = await profiles.save({
    name: 'Second service',
    baseUrl: services[1]!.baseUrl,
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  expect(saved.ok, JSON.stringify(saved)).toBe(true);
  const watched = await runCli(
    cliPath,
    ['watch', '--data-dir', dataDir, '--json', '--base-url', services[0]!.baseUrl],
    { credentials: DEMO_CLIENT },
  );
  await profiles.delete('Second service');
  expect(watched.code, watched.stderr).toBe(0);
  const events = parseJsonLines(watched.stdout);
  expect(events.filter((event) => event.type === 'gone')).toEqual([]);
  const completed = events
    .filter((event) => event.type === 'completed')
    .map((event) => event.externalReference);
  expect(completed.sort()).toEqual(
    manifests.flatMap((manifest) => manifest.documents.map((document) => document.reference)).sort(),
  );
  expect(events.at(-1)).toEqual({ type: 'summary', open: 0 });
  for (const service of services) {
    const own = new Set(service.state.requests().map((request) => request.id));
    for (const call of service.state
      .calls()
      .filter((candidate) => candidate.operation === 'readSigningRequest'))
      expect(own.has(call.path.split('/').at(-1) ?? ''), call.path).toBe(true);
    expect(service.state.violations()).toEqual([]);
  }
}, 120_000);
