import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SERVICE_VARIANTS, describeVariant, variantFromSeed } from '../../simulator/variants';
import { actions, type Counts } from './actions';
import { World } from './world';

/**
 * Generated histories (README "Sending exactly once"): sequences of what people and the world do —
 * send, move, copy, edit, a second desk, pause, kill, power cut, days going by, a line that drops
 * calls, refused tokens, statuses the spec does not list, answers to checks — against the services
 * the spec allows, with every promise checked after every step (promises.ts).
 *
 * MODEL_RUNS (default 200 in npm test), MODEL_STEPS (default 12) and MODEL_SEED set the run;
 * the seed is printed, and a failure prints the seed and path to replay it with MODEL_SEED and
 * MODEL_PATH (MODEL_SHRINK=1 looks for the shortest history that still fails).
 */
const runs = Number(process.env.MODEL_RUNS ?? 200);
const steps = Number(process.env.MODEL_STEPS ?? 12);
const seed = Number(process.env.MODEL_SEED ?? Math.floor(Math.random() * 2 ** 31));
const path = process.env.MODEL_PATH;
const shrink = process.env.MODEL_SHRINK === '1';

const variant = fc.oneof(
  fc.constantFrom(...SERVICE_VARIANTS),
  fc.nat({ max: 1_000_000 }).map((variantSeed) => variantFromSeed(variantSeed)),
);

describe('the promises hold through generated histories of people and the world', () => {
  it(
    `${runs} histories of up to ${steps} steps (MODEL_SEED=${seed})`,
    async () => {
      console.log(`== model-based histories: MODEL_SEED=${seed} MODEL_RUNS=${runs} MODEL_STEPS=${steps}`);
      const figures = { histories: 0, steps: 0, checks: 0, anew: 0, alarms: 0 };
      await fc.assert(
        fc.asyncProperty(
          variant,
          fc.nat({ max: 2 ** 30 }),
          fc.commands(actions, { maxCommands: steps, size: 'max' }),
          async (service, worldSeed, history) => {
            const world = await World.create(service, worldSeed);
            try {
              await fc.asyncModelRun(
                () => ({ model: { folders: 1, desks: 1 } satisfies Counts, real: world }),
                history,
              );
              figures.histories += 1;
              figures.steps += world.ledger.log.length;
              figures.checks += world.ledger.seenChecks.size;
              figures.anew += [...world.ledger.anew.values()].reduce((sum, count) => sum + count, 0);
              figures.alarms += [...world.ledger.alarms.values()].reduce((sum, count) => sum + count, 0);
              if (process.env.MODEL_VERBOSE === '1')
                console.log(`${service.name}:\n    ${world.ledger.log.join('\n    ')}`);
            } catch (error) {
              throw new Error(
                `${(error as Error).message}\n  service: ${describeVariant(service)}\n  history:\n    ${world.ledger.log.join('\n    ')}`,
                { cause: error },
              );
            } finally {
              await world.dispose();
            }
          },
        ),
        { numRuns: runs, seed, ...(path ? { path } : {}), endOnFailure: !shrink },
      );
      console.log(
        `== model-based histories: ${figures.histories} histories, ${figures.steps} steps, ${figures.checks} checks asked (all true), ${figures.alarms} "may now have two", ${figures.anew} sent anew on purpose`,
      );
      expect(figures.histories).toBe(runs);
    },
    30 * 60_000,
  );
});
