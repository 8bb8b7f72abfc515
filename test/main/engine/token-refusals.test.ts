import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { phaseOf } from '../../../main/domain/batch-state';
import type { SendEngineEvent } from '../../../main/engine/send-events';
import { engineReasonText } from '../../../main/domain/send-messages';
import type { Desk } from '../../../main/app/desk-core';
import { createTranslator } from '../../../shared/i18n/translator';
import { startSimulator, type Simulator } from '../../../simulator/simulator';
import { makeBatch, openTestDesk } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

/**
 * The send engine meets a refused token request (README "Answers the spec does not pin down"): when
 * its credentials got a token in this process, it waits as for an outage and says the service's
 * code; when they never did, the run stops at once with the credentials rejected.
 */
let sim: Simulator;
let files: TempFolder;
let desk: Desk;

beforeEach(async () => {
  sim = await startSimulator({ seed: 17 });
  files = makeTempFolder();
  desk = await openTestDesk(sim, files.file('data'));
});
afterEach(async () => {
  await desk.close();
  await sim.close();
  files.remove();
});

function engineStates(events: readonly SendEngineEvent[]) {
  return events.flatMap((event) => (event.type === 'engine-state' ? [event] : []));
}

describe('a refused token request while sending', () => {
  it('mid-batch: the engine waits, naming the service code, and carries on; nothing stops, nothing is sent twice', async () => {
    const batch = await makeBatch(desk, files, 4);
    const events: SendEngineEvent[] = [];
    let refused = false;
    desk.engine.subscribe((event) => {
      events.push(event);
      // Once the first creation starts, the service forgets every token and refuses the next
      // token request, as during a key rotation.
      if (!refused && event.type === 'item-progress' && event.phase === 'creating') {
        refused = true;
        sim.revokeTokens();
        sim.faults.enqueue({ kind: 'tokenRefusal' });
      }
    });
    const summary = await desk.engine.send(batch.id);

    expect(summary).toMatchObject({ state: 'finished', prepared: 4, failed: 0, needsCheck: 0 });
    const states = engineStates(events);
    expect(states.filter((event) => event.state === 'stopped')).toEqual([]);
    const waits = states.filter((event) => event.state === 'waiting');
    expect(waits.length).toBeGreaterThan(0);
    expect(waits[0]).toMatchObject({
      reason:
        'The service refused a token (invalid_grant) — often a moment during key rotation; trying again…',
      cause: { code: 'token_refused', serviceCode: 'invalid_grant' },
    });
    // A view words it in the person's language, the service's code kept.
    const { t } = createTranslator('de');
    const cause = waits[0]?.cause;
    expect(cause && engineReasonText(cause, t)).toBe(
      t('errors.token_refused', { serviceCode: 'invalid_grant' }),
    );
    expect(cause && engineReasonText(cause, t)).toContain('(invalid_grant)');

    const tokens = sim.state.calls().filter((call) => call.operation === 'token');
    expect(tokens.map((call) => call.status)).toEqual([200, 400, 200]);
    expect(desk.store.get(batch.id)?.documents.map(phaseOf)).toEqual(Array(4).fill('prepared'));
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1, 'REF-2': 1, 'REF-3': 1, 'REF-4': 1 });
    expect(sim.state.violations()).toEqual([]);
  }, 30_000);

  it('before these credentials ever got a token in this process: the run stops at once, credentials rejected', async () => {
    const batch = await makeBatch(desk, files, 2);
    const events: SendEngineEvent[] = [];
    desk.engine.subscribe((event) => void events.push(event));
    sim.faults.enqueue({ kind: 'tokenRefusal' });
    const summary = await desk.engine.send(batch.id);

    expect(summary.state).toBe('stopped');
    expect(summary.reason).toContain('rejected the connection credentials');
    expect(engineStates(events).find((event) => event.state === 'stopped')?.cause).toMatchObject({
      code: 'credentials_rejected',
    });
    expect(sim.state.calls().map((call) => [call.operation, call.status])).toEqual([['token', 400]]);
  });
});
