import { afterEach, expect, it } from 'vitest';
import { documentViewOf } from '../../../main/app/batch-views';
import { classOf, needsTracking } from '../../../main/domain/document-class';
import type { Desk } from '../../../main/app/desk-core';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { StatusPoller, type PollerEvent } from '../../../main/tracking/status-poller';
import type { Simulator } from '../../../simulator/simulator';
import { makeBatch } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

/**
 * Tracking follows requests, not the way they got there (README "Tracking politely"): a document
 * that needs the user's check is linked to a request someone already prepared at the service; its
 * extra participant is then refused (a prepared request takes none). Its request lives on, so it is
 * read until final, through the real engine and poller against the simulator, all on one virtual
 * clock.
 */
let sim: Simulator | undefined;
let clock: VirtualClock;
let files: TempFolder | undefined;
let desk: Desk | undefined;
let poller: StatusPoller | undefined;

afterEach(async () => {
  poller?.stop();
  if (desk) await clock.complete(desk.close());
  await sim?.close();
  files?.remove();
  [poller, desk, sim, files] = [undefined, undefined, undefined, undefined];
});

const CREATE_PATH = '^/api/v1/signing-requests$';

it('a linked request that was already prepared is read until final, even after its extra participant is refused', async () => {
  ({ sim, clock } = await startVirtualSimulator({ seed: 8 }));
  files = makeTempFolder('desk-linked-prepared-');
  desk = await openVirtualDesk(sim, clock, files.file('data'), { reuploadBackoffMs: 20 });
  const service = sim;
  const batch = await makeBatch(desk, files, 1);
  // The creation is applied, its answers are lost, then the service words a 404: the app cannot
  // know whether a request exists, and asks.
  sim.faults.enqueue(
    ...Array.from({ length: 4 }, () => ({ kind: 'dropAfter' as const, pathPattern: CREATE_PATH })),
    { kind: 'reject', pathPattern: CREATE_PATH, status: 404, code: 'not_found' },
  );
  expect(await clock.complete(desk.engine.send(batch.id))).toMatchObject({ needsCheck: 1 });
  const [remote] = sim.state.requests();
  // Meanwhile someone prepared that request at the service (a colleague's desk, the service's own screen).
  const prepared = await clock.complete(desk.client.prepareSigningRequest(remote!.id));
  expect(prepared.ok).toBe(true);

  // The user links it; sending goes on with the extra participant, which a prepared request refuses.
  const documentId = desk.store.get(batch.id)!.documents[0]!.draft.id;
  expect(await clock.complete(desk.engine.linkRequest(batch.id, documentId, remote!.id))).toEqual({
    ok: true,
  });
  expect(await clock.complete(desk.engine.send(batch.id))).toMatchObject({ failed: 1 });
  const document = () => desk!.store.get(batch.id)!.documents.find((d) => d.draft.id === documentId)!;
  expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });

  // It waits for signatures, tracked, and the refusal stays in view.
  expect(classOf(document())).toBe('waiting');
  expect(needsTracking(document())).toBe(true);
  const view = documentViewOf(desk.store.get(batch.id)!, document());
  expect(view).toMatchObject({
    class: 'waiting',
    requestId: remote!.id,
    error: { code: 'participant_conflict' },
  });

  // The poller reads it: prepared, then, once everyone signed and the evidence is ready, final.
  const events: PollerEvent[] = [];
  poller = new StatusPoller({ store: desk.store, client: desk.client, random: () => 0.5, clock });
  poller.subscribe((event) => {
    events.push(event);
    // Signed by everyone right after the first read.
    if (event.type === 'checked' && events.filter((e) => e.type === 'checked').length === 1)
      service.complete(remote!.id);
  });
  poller.start();
  await clock.runUntil(() => events.some((event) => event.type === 'completed'), {
    what: `the completion (events: ${JSON.stringify(events)})`,
    withinMs: 3_600_000,
  });
  const readsWhenFinal = sim.state.calls().filter((call) => call.operation === 'readSigningRequest').length;
  // Two reads by the poller: prepared, then completed with its evidence ready (30 s later).
  expect(events.filter((event) => event.type === 'checked')).toHaveLength(2);
  expect(classOf(document())).toBe('completed');
  expect(document().tracking).toMatchObject({ status: 'completed', evidenceReady: true, final: true });
  // Final: never read again (a day goes by on the poller's clock).
  await clock.advance(24 * 3_600_000);
  expect(sim.state.calls().filter((call) => call.operation === 'readSigningRequest')).toHaveLength(
    readsWhenFinal,
  );
  expect(sim.state.violations()).toEqual([]);
});
