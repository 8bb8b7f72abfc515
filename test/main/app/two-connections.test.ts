import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import type { CredentialStore } from '../../../main/credentials/credential-store';
import { READ_SPACING_MS } from '../../../main/client/read-spacing';
import type { DataDir } from '../../../main/app/desk-core';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import type { DeskHandlers } from '../../../shared/ipc/contract';
import {
  createTestDeskService,
  deleteConnectionAnyway,
  expectNoForeignReads as expectNoForeignReadsAt,
  outcome,
  sendOneDocumentBatch,
} from '../../support/desk-service-harness';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import type { TempFolder } from '../../support/pdf-files';
import { openTwoServices, saveBothConnections, type TwoServices } from '../../support/two-services';

/**
 * Office desks keep a sandbox and a production connection (README "Using the app", Connections): each
 * batch is continued and tracked with the connection it was sent with, whatever is active.
 * Both services and the desk are on one virtual clock.
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

function openService(): void {
  service = createTestDeskService(dataDir, credentials, { clock });
  handlers = service.handlers;
}

beforeEach(async () => {
  world = await openTwoServices('two-connections-', [11, 12]);
  ({ files, clock, dataDir, sandbox, production, credentials } = world);
  openService();
  await saveBothConnections(handlers, world);
});

afterEach(async () => {
  await clock.complete(service.close());
  await world.close();
});

const sendBatch = (reference: string) => sendOneDocumentBatch(handlers, files, reference, clock);

async function restart(): Promise<void> {
  await clock.complete(service.close());
  openService();
  await clock.complete(service.start());
}
const expectNoForeignReads = () => expectNoForeignReadsAt([sandbox, production]);

it('a batch per connection, the active one switched back and forth and the app restarted: every request is tracked to completion at its own service, none is gone', async () => {
  await handlers['profiles.activate']('Sandbox');
  const inSandbox = await sendBatch('SANDBOX-1');
  await handlers['profiles.activate']('Production');
  const inProduction = await sendBatch('PROD-1');
  await handlers['profiles.activate']('Sandbox');
  await handlers['profiles.activate']('Production');
  expect(sandbox.state.countByExternalReference()).toEqual({ 'SANDBOX-1': 1 });
  expect(production.state.countByExternalReference()).toEqual({ 'PROD-1': 1 });

  // The app is restarted with Production active; the sandbox batch is still tracked, with its own connection.
  await restart();
  sandbox.complete(sandbox.state.requests()[0]!.id);
  production.complete(production.state.requests()[0]!.id);
  // Both open requests are read, each at its own service.
  expect(await handlers['tracking.refreshNow']()).toEqual({ reading: 2 });
  for (const batchId of [inSandbox, inProduction]) {
    const document = await outcome(clock, `${batchId} completed`, async () => {
      const [first] = (await handlers['batches.get'](batchId)).documents;
      return first?.tracking?.final ? first : undefined;
    });
    expect(document.gone).toBe(false);
    // Read on the desk's clock, within the last minute.
    expect(Date.parse(document.lastCheckedAt ?? '')).toBeGreaterThan(clock.now() - 60_000);
    expect(Date.parse(document.lastCheckedAt ?? '')).toBeLessThanOrEqual(clock.now());
  }
  expectNoForeignReads();
  expect(sandbox.state.violations()).toEqual([]);
  expect(production.state.violations()).toEqual([]);
}, 60_000);

it('a batch whose connection was deleted says so, is never read with another, and goes on once it is added again', async () => {
  await handlers['profiles.activate']('Sandbox');
  const inSandbox = await sendBatch('SANDBOX-2');
  await handlers['profiles.activate']('Production');
  await deleteConnectionAnyway(handlers, 'Sandbox');
  await restart();

  const detail = await handlers['batches.get'](inSandbox);
  expect(detail.connectionProblem).toMatch(new RegExp(`sent with the connection to ${sandbox.baseUrl}`));
  await expect(handlers['tracking.refreshNow'](inSandbox)).rejects.toThrow(
    /no longer among your connections/,
  );
  sandbox.complete(sandbox.state.requests()[0]!.id);
  await handlers['tracking.refreshNow']();
  // An hour of tracking: the batch is read nowhere, so never marked gone.
  await clock.advance(3_600_000);
  expect((await handlers['batches.get'](inSandbox)).documents[0]?.gone).toBe(false);
  expect(production.state.calls().filter((call) => call.operation === 'readSigningRequest')).toEqual([]);

  await handlers['profiles.save']({
    name: 'Sandbox again',
    baseUrl: sandbox.baseUrl,
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  await handlers['tracking.refreshNow'](inSandbox);
  await outcome(clock, 'the sandbox request completed', async () =>
    (await handlers['batches.get'](inSandbox)).documents[0]?.tracking?.final ? true : undefined,
  );
  expect((await handlers['batches.get'](inSandbox)).connectionProblem).toBeUndefined();
  expectNoForeignReads();
}, 60_000);

it('"gone" is not final: Check again reads the request at its own service and tracks it again', async () => {
  await handlers['profiles.activate']('Sandbox');
  const batchId = await sendBatch('SANDBOX-3');
  const [request] = sandbox.state.requests();
  // The service says, once, that it has no such request (a 404 in its own words).
  sandbox.faults.enqueue({
    kind: 'reject',
    pathPattern: '^/api/v1/signing-requests/[^/]+$',
    status: 404,
    code: 'signing_request_not_found',
  });
  await clock.advance(READ_SPACING_MS); // the read spacing after prepare
  await handlers['tracking.refreshNow'](batchId);
  const gone = await outcome(clock, 'marked gone', async () => {
    const [document] = (await handlers['batches.get'](batchId)).documents;
    return document?.gone ? document : undefined;
  });
  expect(gone.phase).toBe('prepared');

  sandbox.complete(request!.id);
  await clock.advance(READ_SPACING_MS);
  await clock.complete(handlers['tracking.checkAgain'](batchId, gone.id));
  const [document] = (await handlers['batches.get'](batchId)).documents;
  expect(document?.gone).toBe(false);
  expect(document?.tracking?.status).toBe('completed');
  expectNoForeignReads();
  expect(sandbox.state.violations()).toEqual([]);
}, 60_000);
