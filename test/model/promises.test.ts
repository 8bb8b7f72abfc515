import { describe, it } from 'vitest';
import { actions } from './actions';
import { runHistories } from './run-histories';

/**
 * Generated histories (README "Sending exactly once"): sequences of what people and the world do —
 * send, move, copy, edit, a second desk, pause, kill, power cut, days going by, a line that drops
 * calls, refused tokens, statuses the spec does not list, answers to checks — against the services
 * the spec allows, with every promise checked after every step (promises.ts).
 *
 * MODEL_RUNS (default 200 in npm test), MODEL_STEPS (default 12) and MODEL_SEED set the run
 * (run-histories.ts says how to replay a failure).
 */
const runs = Number(process.env.MODEL_RUNS ?? 200);

describe('the promises hold through generated histories of people and the world', () => {
  it(
    `${runs} histories of up to ${process.env.MODEL_STEPS ?? 12} steps`,
    () => runHistories(actions, { runs }),
    30 * 60_000,
  );
});
