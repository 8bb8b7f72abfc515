import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import type { DeskHandlers } from '../../../shared/ipc/contract';
import {
  createTestDeskService,
  draftOneDocumentBatch,
  sendOneDocumentBatch,
} from '../../support/desk-service-harness';
import { DEMO_CLIENT } from '../../../simulator/simulator';
import type { TempFolder } from '../../support/pdf-files';
import { openTwoServices, saveBothConnections, type TwoServices } from '../../support/two-services';

/**
 * Deleting a connection that open requests use (found by an outside tester: 2,100 open requests
 * were dropped behind "delete … and its saved secret?"): main counts what stops — each batch's
 * requests waiting for signatures and its documents not finished sending — and deletes only when
 * the person confirms at least that many; a count that grew since they looked is refused. Another
 * connection to the same service and client id keeps the batches going: nothing depends then.
 */

let world: TwoServices;
let files: TempFolder;
let clock: VirtualClock;
let service: DeskService;
let handlers: DeskHandlers;

beforeEach(async () => {
  world = await openTwoServices('connection-delete-', [21, 22]);
  ({ files, clock } = world);
  service = createTestDeskService(world.dataDir, world.credentials, { clock });
  handlers = service.handlers;
  await saveBothConnections(handlers, world);
  await handlers['profiles.activate']('Sandbox');
});

afterEach(async () => {
  await clock.complete(service.close());
  await world.close();
});

const sendBatch = (reference: string) => sendOneDocumentBatch(handlers, files, reference, clock);
const names = async () => (await handlers['profiles.list']()).map((profile) => profile.name);

describe('deleting a connection that open requests use', () => {
  it('counts the batches, their open requests and unfinished documents; a draft never bound is not counted', async () => {
    const sent = await sendBatch('OPEN-1');
    await sendBatch('OPEN-2');
    await draftOneDocumentBatch(handlers, files, 'DRAFT-1');
    const dependents = await handlers['profiles.dependents']('Sandbox');
    expect(dependents).toMatchObject({ openRequests: 2, unfinished: 0, active: true });
    expect(dependents.batches.map((batch) => batch.name).sort()).toEqual(['OPEN-1', 'OPEN-2']);
    expect(dependents.batches.find((batch) => batch.id === sent)).toMatchObject({ openRequests: 1 });
    expect(dependents.servedBy).toBeUndefined();
    // Nothing of the sandbox's runs on production.
    expect(await handlers['profiles.dependents']('Production')).toMatchObject({
      openRequests: 0,
      unfinished: 0,
      batches: [],
      active: false,
    });
  }, 60_000);

  it('refuses without the confirmation of what stops, and keeps tracking; deletes once confirmed, and the batch says its connection is gone', async () => {
    const batchId = await sendBatch('OPEN-3');
    await expect(handlers['profiles.delete']('Sandbox')).rejects.toMatchObject({
      code: 'connection_in_use',
      message: expect.stringMatching(/1 request or document of your batches depends on “Sandbox”/),
    });
    expect(await names()).toContain('Sandbox');
    expect((await handlers['batches.get'](batchId)).connectionProblem).toBeUndefined();

    await handlers['profiles.delete']('Sandbox', { dependents: 1 });
    expect(await names()).toEqual(['Production']);
    // It was the active one: none is active now (the page says so), Production is not chosen for the person.
    expect((await handlers['profiles.list']()).some((profile) => profile.active)).toBe(false);
    expect((await handlers['batches.get'](batchId)).connectionProblem).toMatch(
      /no longer among your connections/,
    );
  }, 60_000);

  it('refuses when more depends on it than the person was shown (a batch sent since)', async () => {
    await sendBatch('OPEN-4');
    const shown = await handlers['profiles.dependents']('Sandbox');
    await sendBatch('OPEN-5');
    await expect(
      handlers['profiles.delete']('Sandbox', { dependents: shown.openRequests + shown.unfinished }),
    ).rejects.toMatchObject({ code: 'connection_in_use' });
    expect(await names()).toContain('Sandbox');
  }, 60_000);

  it('another connection to the same service and client id keeps its batches going: nothing depends, no confirmation needed', async () => {
    const batchId = await sendBatch('OPEN-6');
    await handlers['profiles.save']({
      name: 'Sandbox (copy)',
      baseUrl: world.sandbox.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      secret: DEMO_CLIENT.clientSecret,
    });
    expect(await handlers['profiles.dependents']('Sandbox')).toMatchObject({
      openRequests: 0,
      unfinished: 0,
      batches: [],
      servedBy: 'Sandbox (copy)',
    });
    await handlers['profiles.delete']('Sandbox');
    expect((await handlers['batches.get'](batchId)).connectionProblem).toBeUndefined();
  }, 60_000);
});
