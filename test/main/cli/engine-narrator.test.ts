import { describe, expect, it } from 'vitest';
import { engineNarrator } from '../../../main/cli/batch-run';
import type { SendEngineEvent } from '../../../main/engine/send-events';

/**
 * The lines `send` prints while the engine waits: one refused token request that several
 * documents meet is said once, even when some meet it after others ran again (token-manager.ts
 * hands the same refusal to every call within its backoff).
 */
const REFUSED =
  'The service refused a token (invalid_grant) — often a moment during key rotation; trying again…';

function waiting(answerId?: number, reason = REFUSED): SendEngineEvent {
  return {
    type: 'engine-state',
    batchId: 'b1',
    state: 'waiting',
    reason,
    cause: {
      code: 'token_refused',
      serviceCode: 'invalid_grant',
      ...(answerId === undefined ? {} : { answerId }),
    },
    resumesAt: 0,
  };
}
const running: SendEngineEvent = { type: 'engine-state', batchId: 'b1', state: 'running' };

describe('the waits send says', () => {
  it('says one refused token once, whether documents meet it together or after others ran again', () => {
    const narrate = engineNarrator('https://sign.example');
    const said = [waiting(1), waiting(1), running, waiting(1), running, waiting(1)]
      .map(narrate)
      .filter((line) => line !== undefined);
    expect(said).toEqual([`  … ${REFUSED}`]);
  });

  it('says a second refused token request again, and a wait without an answer id once until running', () => {
    const narrate = engineNarrator('https://sign.example');
    const said = [
      waiting(1),
      running,
      waiting(2),
      waiting(undefined, 'Busy'),
      waiting(undefined, 'Busy'),
      running,
      waiting(undefined, 'Busy'),
    ]
      .map(narrate)
      .filter((line) => line !== undefined);
    expect(said).toEqual([`  … ${REFUSED}`, `  … ${REFUSED}`, '  … Busy', '  … Busy']);
  });
});
