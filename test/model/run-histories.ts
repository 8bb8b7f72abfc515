import fc from 'fast-check';
import { expect } from 'vitest';
import { SERVICE_VARIANTS, describeVariant, variantFromSeed } from '../../simulator/variants';
import type { Counts } from './actions';
import { World } from './world';

/**
 * Runs generated histories of `actions` against the services the spec allows, each in a new
 * World (`prepare` sets it up), and prints what they did. MODEL_RUNS (default `runs`),
 * MODEL_STEPS (default 12) and MODEL_SEED set the run; the seed is printed, and a failure prints
 * the seed and path to replay it with MODEL_SEED and MODEL_PATH (MODEL_SHRINK=1 looks for the
 * shortest history that still fails).
 */
export async function runHistories(
  actions: fc.Arbitrary<fc.AsyncCommand<Counts, World, false>>[],
  options: { readonly runs: number; readonly prepare?: (world: World) => Promise<void> },
): Promise<void> {
  const runs = Number(process.env.MODEL_RUNS ?? options.runs);
  const steps = Number(process.env.MODEL_STEPS ?? 12);
  const seed = Number(process.env.MODEL_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const path = process.env.MODEL_PATH;
  const shrink = process.env.MODEL_SHRINK === '1';
  const variant = fc.oneof(
    fc.constantFrom(...SERVICE_VARIANTS),
    fc.nat({ max: 1_000_000 }).map((variantSeed) => variantFromSeed(variantSeed)),
  );
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
          await options.prepare?.(world);
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
}
