import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKeytarCredentialStore } from '../../../main/credentials/credential-store';
import { createProfileStore } from '../../../main/credentials/profile-store';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { batchOfPdfs, makeBatch } from '../../support/batch-harness';
import { sendingAsEarlierVersion } from '../../support/earlier-version';
import { runCliHere, type CliHereOptions } from '../../support/cli-in-process';
import { parseJsonLines } from '../../support/cli-process';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';
import { writeContractManifest } from './cli-fixtures';

/**
 * Two services, one data folder: `send` to each, then one `watch` tracks every batch at its
 * own address (README "Using the app", Connections) until every request is final; none is read at the
 * other service, none is marked gone. The command line runs in the test's process, the services
 * and it on one virtual clock: watch's reads take no real time.
 */

let work: TempFolder;
let services: Simulator[] = [];

beforeAll(() => {
  work = makeTempFolder('desk-watch-two-');
});

afterAll(async () => {
  for (const service of services) await service.close();
  work.remove();
});

/** Runs the command line with `credentials` on `clock`. */
function run(
  clock: VirtualClock,
  args: readonly string[],
  credentials: CliHereOptions['credentials'] = DEMO_CLIENT,
) {
  return runCliHere(args, { clock, credentials });
}

it('send to two services, then one watch: every request completed at its own service, none gone', async () => {
  const clock = new VirtualClock({ startAt: Date.UTC(2026, 2, 2, 9) });
  services = [
    (await startVirtualSimulator({ seed: 31 }, clock)).sim,
    (await startVirtualSimulator({ seed: 32 }, clock)).sim,
  ];
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
    const sent = await run(clock, [
      'send',
      manifest.path,
      '--base-url',
      service.baseUrl,
      '--data-dir',
      dataDir,
    ]);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
  }
  for (const service of services)
    for (const request of service.state.requests()) service.complete(request.id);
  await clock.advance(60_000);

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
  const watched = await run(clock, [
    'watch',
    '--data-dir',
    dataDir,
    '--json',
    '--base-url',
    services[0]!.baseUrl,
  ]);
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
  expect(events.at(-1)).toEqual({ type: 'summary', open: 0, gone: 0, ended: 0, unknownStatus: 0 });
  for (const service of services) {
    const own = new Set(service.state.requests().map((request) => request.id));
    for (const call of service.state
      .calls()
      .filter((candidate) => candidate.operation === 'readSigningRequest'))
      expect(own.has(call.path.split('/').at(-1) ?? ''), call.path).toBe(true);
    expect(service.state.violations()).toEqual([]);
  }
}, 30_000);

it('a batch sent by an earlier version (not bound) and a bound one at the same service: watch --base-url binds the older one and reads each request once', async () => {
  const { sim: service, clock } = await startVirtualSimulator({ seed: 33 });
  services.push(service);
  const dataDir = work.file('data-older');
  const desk = await openVirtualDesk(service, clock, dataDir);
  const files = makeTempFolder('desk-watch-older-');
  const older = await makeBatch(desk, files, 2, 'Older');
  // An earlier version sent it without recording its connection.
  const sent = await sendingAsEarlierVersion(desk.store, () => clock.complete(desk.engine.send(older.id)));
  expect(sent.state).toBe('finished');
  // Contracts of their own: the same references again would be held back as already sent.
  const newer = await batchOfPdfs(
    desk,
    [await writePdf(files, 'Newer 1.pdf'), await writePdf(files, 'Newer 2.pdf')],
    'Newer',
    'NEW',
  );
  expect((await clock.complete(desk.engine.send(newer.id))).state).toBe('finished');
  expect(desk.store.get(older.id)?.connection).toBeUndefined();
  await desk.close();
  files.remove();
  for (const request of service.state.requests()) service.complete(request.id);
  await clock.advance(60_000);

  const watched = await run(clock, ['watch', '--data-dir', dataDir, '--base-url', service.baseUrl]);
  expect(watched.code, watched.stderr).toBe(0);
  expect(watched.stdout).toContain('Older, sent by an earlier version, is tracked at');
  expect(watched.stdout).toContain('Every request is final.');
  // One reader for the one connection: no request read twice within 5 s (one of the older
  // batch's was read first to check that this service holds it).
  const reads = service.state.calls().filter((call) => call.operation === 'readSigningRequest');
  const times = new Map<string, number[]>();
  for (const call of reads) times.set(call.path, [...(times.get(call.path) ?? []), Date.parse(call.at)]);
  expect(times.size).toBe(4);
  for (const [path, at] of times)
    for (let index = 1; index < at.length; index += 1)
      expect(at[index]! - at[index - 1]!, path).toBeGreaterThanOrEqual(5_000);
}, 30_000);

it('a batch sent by an earlier version is bound by watch only where its requests are: a mistyped client id binds nothing, and the right one then works', async () => {
  const { sim: service, clock } = await startVirtualSimulator({ seed: 35 });
  services.push(service);
  const dataDir = work.file('data-typo');
  const desk = await openVirtualDesk(service, clock, dataDir);
  const files = makeTempFolder('desk-watch-typo-');
  const older = await makeBatch(desk, files, 1, 'Typo');
  const sent = await sendingAsEarlierVersion(desk.store, () => clock.complete(desk.engine.send(older.id)));
  expect(sent.state).toBe('finished');
  await desk.close();
  files.remove();
  for (const request of service.state.requests()) service.complete(request.id);
  await clock.advance(60_000);

  const mistyped = await run(clock, ['watch', '--data-dir', dataDir, '--base-url', service.baseUrl], {
    ...DEMO_CLIENT,
    clientId: `${DEMO_CLIENT.clientId}-typo`,
  });
  expect(mistyped.code).toBe(1);
  expect(mistyped.stderr).toContain('Cannot track 1 open request of Typo');
  const right = await run(clock, ['watch', '--data-dir', dataDir, '--base-url', service.baseUrl]);
  expect(right.code, right.stderr).toBe(0);
  expect(right.stdout).toContain('Typo, sent by an earlier version, is tracked at');
  expect(right.stdout).toContain('Every request is final.');
}, 30_000);

it('a request its service no longer knows: watch does not call it final, says to check it again, and exits 1', async () => {
  const { sim: service, clock } = await startVirtualSimulator({ seed: 34 });
  services.push(service);
  const dataDir = work.file('data-gone');
  const desk = await openVirtualDesk(service, clock, dataDir);
  const files = makeTempFolder('desk-watch-gone-');
  const batch = await makeBatch(desk, files, 2, 'Gone');
  expect((await clock.complete(desk.engine.send(batch.id))).state).toBe('finished');
  // The first document's request is one this service does not know (spec §5: a 404 not_found).
  const [first] = desk.store.get(batch.id)?.documents ?? [];
  await desk.store.record(batch.id, [
    { type: 'request_created', documentId: first!.draft.id, requestId: 'sr_unknown_here', replayed: false },
  ]);
  await desk.close();
  files.remove();
  for (const request of service.state.requests()) service.complete(request.id);
  await clock.advance(60_000);

  const watched = await run(clock, ['watch', '--data-dir', dataDir, '--base-url', service.baseUrl]);
  expect(watched.code, watched.stderr).toBe(1);
  expect(watched.stdout).not.toContain('Every request is final.');
  expect(watched.stdout).toContain(
    'Every other request is final; 1 request is no longer known to its service: check it again in the app.',
  );
}, 30_000);
