import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { PROFILES_FILE } from '../../../main/credentials/profile-store';
import type { DeskService } from '../../../main/app/desk-service';
import type { CredentialStore } from '../../../main/credentials/credential-store';
import { READ_SPACING_MS } from '../../../main/client/read-spacing';
import type { DataDir } from '../../../main/app/desk-core';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import type { DeskHandlers, EventPayload } from '../../../shared/ipc/contract';
import {
  createTestDeskService,
  deleteConnectionAnyway,
  expectNoForeignReads as expectNoForeignReadsAt,
  outcome,
  sendAsReviewed,
  sendOneDocumentBatch,
} from '../../support/desk-service-harness';
import { sendAsEarlierVersion } from '../../support/earlier-version';
import { savedSecretAccount } from '../../support/keychain-accounts';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { writePdf, type TempFolder } from '../../support/pdf-files';
import { openTwoServices, saveBothConnections, type TwoServices } from '../../support/two-services';

/**
 * Connections changing under open batches (found by an outside review): a profile saved again,
 * moved, deleted and added back, two profiles for one service, a missing secret, a refresh of
 * a draft. Every batch keeps its own connection and is tracked until final without a restart.
 *
 * Both services, the data folder, the desk and the keychain's delays are on one virtual clock:
 * the read spacing and the keychain's prompts pass at once, in the order they would in real time.
 */

let world: TwoServices;
let files: TempFolder;
let clock: VirtualClock;
let dataDir: DataDir;
let sandbox: Simulator;
let production: Simulator;
let credentials: CredentialStore;
let service: DeskService;
let handlers: DeskHandlers;
let emitted: { event: string; payload: unknown }[] = [];
/** How long the keychain takes to answer for a profile name. */
let keychainDelayMs: Map<string, number>;

function openService(): void {
  service = createTestDeskService(dataDir, credentials, {
    clock,
    emit: (event, payload) => {
      emitted.push({ event, payload });
    },
  });
  handlers = service.handlers;
}

beforeEach(async () => {
  world = await openTwoServices('two-connections-', [11, 12]);
  ({ files, clock, dataDir, sandbox, production, credentials, keychainDelayMs } = world);
  openService();
  await saveBothConnections(handlers, world);
});

afterEach(async () => {
  await clock.complete(service.close());
  await world.close();
});

const sendBatch = (reference: string) => sendOneDocumentBatch(handlers, files, reference, clock);
const expectNoForeignReads = () => expectNoForeignReadsAt([sandbox, production]);

async function draftBatch(reference: string, count = 1): Promise<string> {
  const batch = await handlers['batches.create'](reference);
  const paths = [];
  for (let i = 0; i < count; i++)
    paths.push(await writePdf(files, `${reference}-${i}.pdf`, `${reference}-${i}`));
  await handlers['documents.addPaths'](batch.id, paths);
  const detail = await handlers['batches.get'](batch.id);
  for (const [i, document] of detail.documents.entries())
    await handlers['documents.update'](batch.id, document.id, {
      externalReference: count === 1 ? reference : `${reference}-${i}`,
      recipients: [{ participant_type: 'signer', role: 'Employee', name: 'Ann', email: 'ann@example.com' }],
    });
  return batch.id;
}

async function allPrepared(batchId: string, ms = 30_000) {
  await outcome(
    clock,
    `${batchId} prepared`,
    async () =>
      (await handlers['batches.get'](batchId)).documents.every((d) => d.phase === 'prepared')
        ? true
        : undefined,
    ms,
  ).catch(async (error: Error) => {
    // Say where each document stopped: a failure names its reason.
    const documents = (await handlers['batches.get'](batchId)).documents;
    const where = documents.map((d) => `${d.phase}${d.error ? ` (${d.error.message})` : ''}`);
    throw new Error(`${error.message}; documents: ${where.join(', ')}`);
  });
}

it('re-saving a non-active profile (e.g. new secret) keeps its open requests tracked without restart', async () => {
  await handlers['profiles.activate']('Sandbox');
  const batchId = await sendBatch('A1');
  await handlers['profiles.activate']('Production');
  await handlers['profiles.save']({
    name: 'Sandbox',
    baseUrl: sandbox.baseUrl,
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  sandbox.complete(sandbox.state.requests()[0]!.id);
  await clock.advance(READ_SPACING_MS);
  await handlers['tracking.refreshNow']();
  const final = await outcome(
    clock,
    'A1 completed',
    async () => {
      const [d] = (await handlers['batches.get'](batchId)).documents;
      return d?.tracking?.final ? true : undefined;
    },
    10_000,
  ).catch((e: Error) => e.message);
  expect(final).toBe(true);
  // The page is told with main's view of the document: its class, and no ceremony to open.
  const news = emitted
    .filter((entry) => entry.event === 'tracking.status')
    .map((entry) => entry.payload as EventPayload<'tracking.status'>)
    .filter((payload) => payload.batchId === batchId);
  expect(news.at(-1)?.document).toMatchObject({ class: 'completed', canOpenCeremony: false });
}, 60_000);

it('editing a profile to a new address: batches bound to the old address say so at once (connectionProblem), without restart', async () => {
  await handlers['profiles.activate']('Sandbox');
  const batchId = await sendBatch('A2');
  await handlers['profiles.save']({
    name: 'Sandbox',
    baseUrl: production.baseUrl + '/other',
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  // At once: no time passes, only what the save set going finishes.
  await clock.advance(0);
  const detail = await handlers['batches.get'](batchId);
  expect(detail.connectionProblem).toMatch(/no longer among your connections/);
}, 60_000);

it('deleted then re-added connection: tracking resumes by itself and the problem clears, without a click on the batch', async () => {
  await handlers['profiles.activate']('Sandbox');
  const batchId = await sendBatch('A3');
  await handlers['profiles.activate']('Production');
  await deleteConnectionAnyway(handlers, 'Sandbox');
  await handlers['tracking.refreshNow']();
  await handlers['profiles.save']({
    name: 'Sandbox 2',
    baseUrl: sandbox.baseUrl + '/',
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  sandbox.complete(sandbox.state.requests()[0]!.id);
  await clock.advance(READ_SPACING_MS);
  await handlers['tracking.refreshNow'](); // the global "Refresh statuses now"
  const final = await outcome(
    clock,
    'A3 completed',
    async () => ((await handlers['batches.get'](batchId)).documents[0]?.tracking?.final ? true : undefined),
    10_000,
  ).catch((e: Error) => e.message);
  expect(final).toBe(true);
}, 60_000);

it('re-saving the ACTIVE profile while its batch sends does not leave the batch paused', async () => {
  await handlers['profiles.activate']('Sandbox');
  const batchId = await draftBatch('A4', 8);
  await sendAsReviewed(handlers, batchId);
  // At once: the documents are still being queued, before the run has started.
  await handlers['profiles.save']({
    name: 'Sandbox',
    baseUrl: sandbox.baseUrl,
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  const ok = await allPrepared(batchId, 15_000).then(
    () => true,
    (e: Error) => e.message,
  );
  expect(ok).toBe(true);
}, 60_000);

it('deleting the active profile while its batch sends: the batch says its connection is gone (not silently idle/running)', async () => {
  await handlers['profiles.activate']('Sandbox');
  const batchId = await draftBatch('A5', 8);
  // Each call takes 100 ms at the service: the batch is mid-send when its profile goes.
  sandbox.faults.set({ latencyMs: 100 });
  await sendAsReviewed(handlers, batchId);
  await clock.runUntil(() => preparedOf(batchId) >= 1, { what: 'the first document of A5 prepared' });
  expect(preparedOf(batchId)).toBeLessThan(8);
  await clock.complete(deleteConnectionAnyway(handlers, 'Sandbox'));
  await clock.advance(2_000);
  const detail = await handlers['batches.get'](batchId);
  expect(detail.connectionProblem ?? '').toMatch(/no longer among your connections/);
}, 60_000);

for (const delayMs of [250, 400]) {
  it(`two Send clicks around a switch of the active connection, the keychain taking ${delayMs} ms: every document goes to one service only`, async () => {
    await handlers['profiles.activate']('Sandbox');
    const batchId = await draftBatch('RACE', 16);
    keychainDelayMs.set('Sandbox', delayMs);
    keychainDelayMs.set('Production', 20);
    const first = sendAsReviewed(handlers, batchId);
    await clock.advance(50);
    await clock.complete(handlers['profiles.activate']('Production'));
    const second = sendAsReviewed(handlers, batchId);
    await clock.complete(Promise.allSettled([first, second]));
    await allPrepared(batchId);
    await clock.advance(1_000); // anything still on its way arrives
    const atSandbox = Object.keys(sandbox.state.countByExternalReference());
    const atProduction = Object.keys(production.state.countByExternalReference());
    // All 16 at the service whose click bound the batch first, none at the other.
    const bound = dataDir.store.get(batchId)?.connection?.baseUrl;
    const [own, other] = bound === sandbox.baseUrl ? [atSandbox, atProduction] : [atProduction, atSandbox];
    expect(own).toHaveLength(16);
    expect(other).toEqual([]);
  }, 60_000);
}

/** A batch an earlier version sent to `sim` without recording its connection. */
async function olderBatchSentTo(sim: Simulator, reference: string): Promise<string> {
  const older = await draftBatch(reference);
  await sendAsEarlierVersion(world, sim, older);
  expect(dataDir.store.get(older)?.connection).toBeUndefined();
  return older;
}

async function restart(): Promise<void> {
  await clock.complete(service.close());
  openService();
  await clock.complete(service.start());
}

async function completedAtItsService(batchId: string) {
  await clock.advance(READ_SPACING_MS);
  await handlers['tracking.refreshNow']();
  const [document] = await outcome(
    clock,
    `${batchId} completed`,
    async () => {
      const documents = (await handlers['batches.get'](batchId)).documents;
      return documents[0]?.tracking?.final ? documents : undefined;
    },
    15_000,
  );
  return document;
}

it('a batch sent by an earlier version (not bound to a connection) is bound at start to the active connection that holds its requests, tracked there only, and never marked gone after a switch', async () => {
  await handlers['profiles.activate']('Sandbox');
  const older = await olderBatchSentTo(sandbox, 'OLDER');
  await restart();
  expect(await boundTo(older)).toBe(sandbox.baseUrl);
  // The user switches to Production and works there; the older batch stays with Sandbox.
  await handlers['profiles.activate']('Production');
  await sendBatch('NEW');
  sandbox.complete(sandbox.state.requests()[0]!.id);
  const document = await completedAtItsService(older);
  expect(document?.gone).toBe(false);
  expectNoForeignReads();
}, 60_000);

/** Waits until the background adoption of an older batch said why it waits. */
async function waitsForItsConnection(batchId: string): Promise<string> {
  return outcome(
    clock,
    `${batchId} says why it waits`,
    async () => {
      const problem = (await handlers['batches.get'](batchId)).connectionProblem;
      return problem?.includes('earlier version') ? problem : undefined;
    },
    30_000,
  );
}

const boundTo = (batchId: string) =>
  outcome(clock, `${batchId} bound`, async () => dataDir.store.get(batchId)?.connection?.baseUrl, 30_000);

/** How many documents of `batchId` are prepared at the service. */
const preparedOf = (batchId: string) =>
  dataDir.store.get(batchId)?.documents.filter((document) => document.send.prepared).length ?? 0;

it('a batch sent by an earlier version is never bound to an active connection that does not hold its requests (another service): it says why, and is bound once its own is active', async () => {
  await handlers['profiles.activate']('Sandbox');
  const older = await olderBatchSentTo(sandbox, 'OLDER2');
  await handlers['profiles.activate']('Production');
  await restart();
  // Production was asked whether it holds the request; it does not, so nothing is bound.
  await waitsForItsConnection(older);
  expect(dataDir.store.get(older)?.connection).toBeUndefined();
  // Another change of connections (a profile saved) asks again, and still binds nothing.
  await clock.complete(
    handlers['profiles.save']({
      name: 'Production',
      baseUrl: production.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      secret: DEMO_CLIENT.clientSecret,
    }),
  );
  await waitsForItsConnection(older);
  expect(dataDir.store.get(older)?.connection).toBeUndefined();
  await handlers['profiles.activate']('Sandbox');
  expect(await boundTo(older)).toBe(sandbox.baseUrl);
  expect((await handlers['batches.get'](older)).connectionProblem).toBeUndefined();
  sandbox.complete(sandbox.state.requests()[0]!.id);
  const document = await completedAtItsService(older);
  expect(document?.gone).toBe(false);
  // Production was asked whether it holds the request at most once per run (before and after
  // the restart); its "no" is not asked again at the next change of connections.
  const productionReads = production.state.calls().filter((call) => call.operation === 'readSigningRequest');
  expect(productionReads.length).toBeGreaterThanOrEqual(1);
  expect(productionReads.length).toBeLessThanOrEqual(2);
}, 60_000);

it('Send, Retry or a ceremony on a batch of an earlier version whose service is not known yet is refused: it is never bound to the active connection, nor read there', async () => {
  await handlers['profiles.activate']('Sandbox');
  const older = await olderBatchSentTo(sandbox, 'OLDER3');
  await handlers['profiles.activate']('Production');
  await restart();
  await waitsForItsConnection(older);
  const [document] = (await handlers['batches.get'](older)).documents;
  await expect(sendAsReviewed(handlers, older)).rejects.toThrow('earlier version');
  await expect(handlers['sending.retry'](older, document!.id)).rejects.toThrow('earlier version');
  await expect(handlers['ceremony.open'](older, document!.id)).rejects.toThrow('earlier version');
  expect(dataDir.store.get(older)?.connection).toBeUndefined();
  expect(dataDir.store.get(older)?.documents[0]?.gone).toBe(false);
  expect(production.state.calls().filter((call) => call.operation === 'createWidgetSession')).toEqual([]);
  // Production was asked once whether it holds the request, and nothing else of this batch.
  expect(production.state.calls().filter((call) => call.operation === 'readSigningRequest')).toHaveLength(1);
}, 60_000);

it('a batch of an earlier version whose candidate service does not answer says so within seconds, and a Send then answers at once', async () => {
  await handlers['profiles.activate']('Sandbox');
  const older = await olderBatchSentTo(sandbox, 'OLDER4');
  await handlers['profiles.activate']('Production');
  production.faults.set({ latencyMs: 30_000 });
  const started = clock.monotonic();
  await restart();
  const problem = await waitsForItsConnection(older);
  expect(problem).toContain('did not answer');
  expect(clock.monotonic() - started).toBeLessThan(20_000);
  // Asked again in a minute, not at every click: the user's Send is answered at once.
  const clicked = clock.monotonic();
  await expect(clock.complete(sendAsReviewed(handlers, older))).rejects.toThrow('did not answer');
  expect(clock.monotonic() - clicked).toBe(0);
  expect(dataDir.store.get(older)?.connection).toBeUndefined();
  production.faults.reset();
}, 60_000);

it('a batch an earlier version split across two services is bound to neither: one request proves nothing for the other', async () => {
  await handlers['profiles.activate']('Sandbox');
  const older = await draftBatch('SPLIT', 2);
  const [first, second] = dataDir.store.get(older)!.documents;
  await sendAsEarlierVersion(world, sandbox, older, [first!.draft.id]);
  // Its second document went to Production: the request a Production batch made for it.
  const carrier = await draftBatch('SPLIT-1');
  await handlers['profiles.activate']('Production');
  await sendAsReviewed(handlers, carrier);
  await allPrepared(carrier);
  const requestId = dataDir.store.get(carrier)!.documents[0]!.send.requestId!;
  await handlers['batches.delete'](carrier);
  await dataDir.store.record(older, [
    { type: 'send_requested', documentIds: [second!.draft.id] },
    { type: 'request_created', documentId: second!.draft.id, requestId, replayed: false },
  ]);
  await handlers['profiles.activate']('Sandbox');
  expect(Object.keys(sandbox.state.countByExternalReference())).toEqual(['SPLIT-0']);
  expect(Object.keys(production.state.countByExternalReference())).toEqual(['SPLIT-1']);
  await restart();
  await waitsForItsConnection(older);
  expect(dataDir.store.get(older)?.connection).toBeUndefined();
  expect(dataDir.store.get(older)?.documents.map((document) => document.gone)).toEqual([false, false]);
}, 60_000);

it('a batch half sent when its connection could not be used goes on by itself once the connection is back', async () => {
  await handlers['profiles.activate']('Sandbox');
  // More documents than calls in flight: a quit lets the calls on their way finish, not the batch.
  const batchId = await draftBatch('HALF', 12);
  sandbox.faults.set({ latencyMs: 60 });
  await sendAsReviewed(handlers, batchId);
  await clock.runUntil(() => preparedOf(batchId) >= 2, { what: 'two documents of HALF prepared' });
  // The app stops mid-batch; at the next start the keychain has lost the secret.
  await clock.complete(service.close());
  sandbox.faults.reset();
  await credentials.deleteSecret(savedSecretAccount(dataDir.path, 'Sandbox'));
  expect(dataDir.store.get(batchId)?.documents.some((d) => !d.send.prepared)).toBe(true);
  openService();
  await clock.complete(service.start());
  expect((await handlers['batches.get'](batchId)).connectionProblem).toBeTruthy();
  // The user enters the secret again: the batch finishes without another click.
  await handlers['profiles.save']({
    name: 'Sandbox',
    baseUrl: sandbox.baseUrl,
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  await allPrepared(batchId);
  expect(Object.values(sandbox.state.countByExternalReference())).toEqual(
    Array.from({ length: 12 }, () => 1),
  );
}, 60_000);

it('a saved secret never goes to an address planted in profiles.json: at start the batch says why, and the planted service hears nothing', async () => {
  await handlers['profiles.activate']('Production');
  const batchId = await sendBatch('PLANTED');
  await deleteConnectionAnyway(handlers, 'Production');
  await clock.complete(service.close());
  // Someone who can write the data folder points the "Sandbox" profile at the batch's service.
  const file = join(dataDir.path, PROFILES_FILE);
  writeFileSync(file, readFileSync(file, 'utf8').replace(sandbox.baseUrl, production.baseUrl));
  const tokensBefore = production.state.calls().filter((call) => call.operation === 'token').length;
  openService();
  await clock.complete(service.start());
  const summary = (await handlers['batches.list']()).find((batch) => batch.id === batchId);
  expect(summary?.connectionProblem).toContain('was saved for another service address or client id');
  expect(JSON.stringify(summary)).not.toContain(DEMO_CLIENT.clientSecret);
  // An hour of tracking later, the planted service still heard nothing.
  await clock.advance(3_600_000);
  expect(production.state.calls().filter((call) => call.operation === 'token').length).toBe(tokensBefore);
}, 60_000);

it('a profile moved to another service while its connection opens (a keychain prompt): nothing of its batches goes to the new service, and the batch says its connection is gone', async () => {
  production.addClient({
    clientId: 'prod-desk',
    clientSecret: 'prod-secret-new',
    scopes: DEMO_CLIENT.scopes,
  });
  await handlers['profiles.activate']('Sandbox');
  const batchId = await sendBatch('MOVED');
  await handlers['profiles.activate']('Production');
  await clock.complete(service.close());
  openService();
  keychainDelayMs.set('Sandbox', 1_000); // the keychain prompts before giving the Sandbox secret
  const starting = service.start();
  await clock.advance(200);
  // Meanwhile the user moves "Sandbox" to another service and client, with its new secret.
  await clock.complete(
    handlers['profiles.save']({
      name: 'Sandbox',
      baseUrl: production.baseUrl,
      clientId: 'prod-desk',
      secret: 'prod-secret-new',
    }),
  );
  await clock.complete(starting);
  keychainDelayMs.clear();
  await clock.advance(READ_SPACING_MS);
  await handlers['tracking.refreshNow']();
  // An hour of tracking, not only the refresh.
  await clock.advance(3_600_000);
  // The batch bound to Sandbox's old address is read nowhere else, by no other client.
  expect(production.state.calls().filter((call) => call.clientId === 'prod-desk')).toEqual([]);
  expectNoForeignReads();
  const detail = await handlers['batches.get'](batchId);
  expect(detail.connectionProblem).toMatch(/no longer among your connections/);
}, 60_000);

it('"Refresh statuses now" on a draft batch does not bind it: it is sent with the connection active when sent', async () => {
  await handlers['profiles.activate']('Sandbox');
  const batchId = await draftBatch('A6');
  await handlers['tracking.refreshNow'](batchId);
  await handlers['profiles.activate']('Production');
  await sendAsReviewed(handlers, batchId);
  await allPrepared(batchId);
  expect(production.state.countByExternalReference()).toEqual({ A6: 1 });
  expect(sandbox.state.countByExternalReference()).toEqual({});
}, 60_000);

it('same host in another case: the batch is still tracked (hostnames are case-insensitive)', async () => {
  await handlers['profiles.activate']('Sandbox');
  const batchId = await sendBatch('A7');
  await handlers['profiles.save']({
    name: 'Sandbox',
    baseUrl: sandbox.baseUrl
      .replace('http://', 'HTTP://')
      .replace('127.0.0.1', '127.0.0.1')
      .replace('localhost', 'LOCALHOST'),
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  const result = await handlers['tracking.refreshNow'](batchId).then(
    () => 'ok',
    (e: Error) => e.message,
  );
  expect(result).toBe('ok');
}, 60_000);

it('two profiles with the same address and client: the first without a keychain secret does not block the batch', async () => {
  await handlers['profiles.activate']('Sandbox');
  const batchId = await sendBatch('A8');
  await handlers['profiles.save']({
    name: 'Sandbox copy',
    baseUrl: sandbox.baseUrl,
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  await handlers['profiles.activate']('Production');
  await credentials.deleteSecret(savedSecretAccount(dataDir.path, 'Sandbox'));
  await clock.complete(service.close());
  openService();
  await clock.complete(service.start());
  const result = await handlers['tracking.refreshNow'](batchId).then(
    () => 'ok',
    (e: Error) => e.message,
  );
  expect(result).toBe('ok');
}, 60_000);

it('keychain secret missing: the batch says so, never reads with another, and the message carries no secret', async () => {
  await handlers['profiles.activate']('Sandbox');
  const batchId = await sendBatch('A9');
  await handlers['profiles.activate']('Production');
  await credentials.deleteSecret(savedSecretAccount(dataDir.path, 'Sandbox'));
  await clock.complete(service.close());
  openService();
  await clock.complete(service.start());
  const detail = await handlers['batches.get'](batchId);
  expect(detail.connectionProblem).toBeTruthy();
  expect(detail.connectionProblem).not.toContain(DEMO_CLIENT.clientSecret);
  // An hour of tracking later, Production has still read nothing of it.
  await clock.advance(3_600_000);
  expect(production.state.calls().filter((c) => c.operation === 'readSigningRequest')).toEqual([]);
  expectNoForeignReads();
}, 60_000);

it('events of a non-active connection reach the UI; pausing tracking then opening another connection keeps it paused', async () => {
  await handlers['profiles.activate']('Sandbox');
  const batchId = await sendBatch('A10');
  await handlers['profiles.activate']('Production');
  service.setTrackingPaused(true);
  emitted = [];
  const b2 = await draftBatch('A10b', 2);
  const [doc] = (await handlers['batches.get'](batchId)).documents;
  await handlers['sending.retry'](batchId, doc!.id).catch(() => undefined);
  await sendAsReviewed(handlers, b2);
  await allPrepared(b2);
  const states = emitted
    .filter((e) => e.event === 'sending.state')
    .map((e) => (e.payload as { batchId: string }).batchId);
  const changed = emitted
    .filter((e) => e.event === 'batch.changed')
    .map((e) => (e.payload as { batch: { id: string } }).batch.id);
  sandbox.complete(sandbox.state.requests()[0]!.id);
  const readsBefore =
    sandbox.state.calls().filter((c) => c.operation === 'readSigningRequest').length +
    production.state.calls().filter((c) => c.operation === 'readSigningRequest').length;
  // An hour, paused: nothing is read at either service.
  await clock.advance(3_600_000);
  const readsAfter =
    sandbox.state.calls().filter((c) => c.operation === 'readSigningRequest').length +
    production.state.calls().filter((c) => c.operation === 'readSigningRequest').length;
  expect(states).toContain(b2);
  expect(changed).toContain(b2);
  expect(readsAfter - readsBefore).toBe(0);
}, 60_000);
