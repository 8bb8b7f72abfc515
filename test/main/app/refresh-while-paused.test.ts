import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import type { DeskHandlers } from '../../../shared/ipc/contract';
import type { Simulator } from '../../../simulator/simulator';
import {
  createTestDeskService,
  deleteConnectionAnyway,
  outcome,
  sendAsReviewed,
} from '../../support/desk-service-harness';
import { writePdf } from '../../support/pdf-files';
import { openTwoServices, saveBothConnections, type TwoServices } from '../../support/two-services';

/**
 * "Refresh statuses now" while tracking is paused (README "Using the app", Tracking): the person
 * asked for it, so every open request is read once, what it says is picked up (a completion
 * shows), and tracking stays paused afterwards. The service and the desk are on one virtual clock.
 */

let world: TwoServices;
let clock: VirtualClock;
let sandbox: Simulator;
let service: DeskService;
let handlers: DeskHandlers;

beforeEach(async () => {
  world = await openTwoServices('refresh-paused-', [41, 42]);
  ({ clock, sandbox } = world);
  service = createTestDeskService(world.dataDir, world.credentials, { clock });
  handlers = service.handlers;
  await saveBothConnections(handlers, world);
  await handlers['profiles.activate']('Sandbox');
});

afterEach(async () => {
  await clock.complete(service.close());
  await world.close();
});

/** A batch of `count` documents (one signer each), sent and prepared at the sandbox; its id. */
async function sentBatch(count: number): Promise<string> {
  const batch = await handlers['batches.create']('Ten contracts');
  const paths = [];
  for (let index = 1; index <= count; index += 1)
    paths.push(await writePdf(world.files, `contract-${index}.pdf`, `Contract ${index}`));
  await handlers['documents.addPaths'](batch.id, paths);
  const { documents } = await handlers['batches.get'](batch.id);
  for (const [index, document] of documents.entries())
    await handlers['documents.update'](batch.id, document.id, {
      externalReference: `PAUSED-${index + 1}`,
      recipients: [{ participant_type: 'signer', role: 'Employee', name: 'Ann', email: 'ann@example.com' }],
    });
  await sendAsReviewed(handlers, batch.id);
  await outcome(clock, 'every document prepared', async () =>
    (await handlers['batches.get'](batch.id)).documents.every((document) => document.phase === 'prepared')
      ? true
      : undefined,
  );
  return batch.id;
}

const reads = () => sandbox.state.calls().filter((call) => call.operation === 'readSigningRequest').length;

async function completedCount(batchId: string): Promise<number> {
  const { documents } = await handlers['batches.get'](batchId);
  return documents.filter((document) => document.tracking?.status === 'completed').length;
}

it('while tracking is paused, "Refresh statuses now" reads each open request once, picks up the 10 completions within 100 s, says so, and tracking stays paused', async () => {
  const batchId = await sentBatch(10);
  await handlers['tracking.setPaused'](true);
  for (const request of sandbox.state.requests()) sandbox.complete(request.id);
  // Paused means paused: ten minutes pass and nothing is read.
  const readsWhilePaused = reads();
  await clock.advance(600_000);
  expect(reads()).toBe(readsWhilePaused);
  expect(await completedCount(batchId)).toBe(0);

  // The words match what happens: ten requests read once, tracking paused.
  expect(await handlers['tracking.refreshNow']()).toEqual({ reading: 10, paused: true });
  await outcome(
    clock,
    'the 10 completions picked up',
    async () => ((await completedCount(batchId)) === 10 ? true : undefined),
    100_000,
  );
  expect(reads() - readsWhilePaused).toBe(10);

  // Once each, then nothing more while tracking stays paused.
  await clock.advance(600_000);
  expect(reads() - readsWhilePaused).toBe(10);
  expect((await handlers['app.info']()).trackingPaused).toBe(true);
}, 60_000);

it('a batch refreshed while paused is read once; tracking resumed reads on from there', async () => {
  const batchId = await sentBatch(2);
  await handlers['tracking.setPaused'](true);
  const [first] = sandbox.state.requests();
  sandbox.complete(first!.id);
  const before = reads();
  expect(await handlers['tracking.refreshNow'](batchId)).toEqual({ reading: 2, paused: true });
  await outcome(clock, 'the completion picked up', async () =>
    (await completedCount(batchId)) === 1 ? true : undefined,
  );
  await clock.advance(600_000);
  expect(reads() - before).toBe(2);

  // Resumed: tracking goes on by itself (the evidence of the completed one, the other's status).
  await handlers['tracking.setPaused'](false);
  await outcome(clock, 'read again once resumed', async () => (reads() > before + 2 ? true : undefined));
  // Tracking runs again: a refresh says nothing of a pause.
  expect(await handlers['tracking.refreshNow'](batchId)).not.toHaveProperty('paused');
}, 60_000);

it('"Refresh statuses now" never says there is nothing to check while requests wait at a connection it cannot use: it counts them apart', async () => {
  const batchId = await sentBatch(2);
  // The batch's own connection is deleted: its two requests still wait for signatures.
  await deleteConnectionAnyway(handlers, 'Sandbox');
  expect((await handlers['batches.get'](batchId)).documents.map((document) => document.class)).toEqual([
    'waiting',
    'waiting',
  ]);
  const reads = sandbox.state.calls().length;
  expect(await handlers['tracking.refreshNow']()).toEqual({ reading: 0, unreadable: 2 });
  // Nothing is read with another connection.
  await clock.advance(60_000);
  expect(sandbox.state.calls().length).toBe(reads);
}, 60_000);
