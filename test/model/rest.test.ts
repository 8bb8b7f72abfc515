import { describe, it } from 'vitest';
import { actionsByKind as a, interruption, step } from './actions';
import { restActions } from './rest-actions';
import { runHistories } from './run-histories';
import type { World } from './world';

/**
 * Generated histories of batches going to rest and back (main/domain/batch-rest.ts): sending,
 * copying and moving folders as in promises.test.ts, with the apps tracking their requests,
 * signers signing, requests vanishing and found again, new contracts and retries in batches at
 * rest, batches renamed and deleted, rest files left stale, cut or swapped while the app is
 * closed, and restarts, kills and power cuts between any two steps; the promises of batches at
 * rest (rest-promises.ts) and the two promises (promises.ts) are checked after every step.
 *
 * MODEL_RUNS (default 40), MODEL_STEPS (default 12) and MODEL_SEED set the run (run-histories.ts).
 */
const runs = Number(process.env.MODEL_RUNS ?? 40);
const r = restActions(step, interruption);

/**
 * Every history starts from a desk with two batches at rest (one document of the second
 * declined) and one waiting for signatures with a document failed, known at the next start from their rest files and
 * journals: the app was quit since.
 */
async function twoBatchesAtRest(world: World): Promise<void> {
  world.checksRest = true;
  world.tracking = true; // The app tracks its requests whenever it runs.
  const slot = world.desks[0];
  if (!slot) throw new Error('a world has a desk');
  await world.addFolder('Offers', 'D-', 2);
  const leases = await world.addFolder('Leases', 'E-', 3);
  for (const folder of world.folders) {
    // The service refuses one lease's upload: it fails, to be tried again.
    if (folder === leases)
      world.sim.faults.enqueue({
        kind: 'reject',
        status: 422,
        code: 'invalid_document',
        pathPattern: '^/api/v1/uploads$',
      });
    await world.send(folder, slot, { continueBatch: false, sendNew: false }, { kind: 'none' });
  }
  for (const request of world.sim.state.requests()) {
    if (request.externalReference === 'D-002') world.sim.setStatus(request.id, { status: 'declined' });
    else if (!request.externalReference.startsWith('E-')) world.sim.complete(request.id);
  }
  await world.pass(3_600_000);
  await world.quit(slot);
  world.ledger.log.push('(Contracts and Offers sent and finished, Leases sent with one failed)');
}

describe('batches at rest keep the promises through generated histories', () => {
  it(
    `${runs} histories of up to ${process.env.MODEL_STEPS ?? 12} steps`,
    () =>
      runHistories(
        [
          ...[a.send, a.send, a.answer, a.copy, a.move, a.importInApp, a.status, a.quit, a.later],
          ...[a.weather, a.lostThenLater, r.signAll, r.track, r.track, r.vanish, r.vanish, r.checkAgain],
          ...[
            r.checkAgain,
            r.refuse,
            r.retry,
            r.retry,
            r.addContract,
            r.change,
            r.change,
            r.tamper,
            r.tamper,
            r.tamper,
          ],
        ],
        { runs, prepare: twoBatchesAtRest },
      ),
    30 * 60_000,
  );
});
