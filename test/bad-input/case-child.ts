/**
 * Runs ONE run of ONE bad-input case in this process, which was started for it alone:
 *
 *   node --expose-gc case-child.mjs FOLDER RUN
 *
 * (case-child.mjs: this file bundled by case-runner.ts, which starts it.)
 *
 * FOLDER holds the case's files (and a good manifest to warm up on), made by the runner; RUN is
 * the run (a `CaseRun` as JSON, `{dir}` already replaced by FOLDER). Loads what the entry point needs,
 * opens it and warms it up on the good manifest, measures idle memory, then runs the case alone
 * and prints one JSON line (`CaseChildReport`) as the last line of stdout.
 *
 * Memory: the figure is the process's peak RSS (`process.resourceUsage().maxRSS`) minus its
 * RSS when idle, taken after the warm-up and a full garbage collection. maxRSS is a high-water
 * mark of the whole process's life, so it also catches a spike that lasts a millisecond (a
 * whole file read into a Buffer, then dropped), which sampling RSS on a timer can miss; the
 * price is that the warm-up's own peak counts too, so the figure can only overstate the case's
 * cost (by the warm-up's small overshoot over idle), never hide it.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { CliOutput } from '../../main/cli/cli-output';
import type { IpcResult } from '../../shared/ipc/contract';
import { WARM_UP_MANIFEST, type CaseRun } from './case-kit';

/** What the child prints: the run's figures and what the entry point answered. */
export interface CaseChildReport {
  readonly ms: number;
  readonly idleBytes: number;
  readonly peakBytes: number;
  readonly observed: unknown;
}

/** An entry point opened and warmed up: `run` is the case alone, `close` what follows it. */
interface Prepared {
  run(): Promise<unknown>;
  close(): Promise<void>;
}

function lines(text: string): string[] {
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

/** `npm run cli -- ARGV`: main/cli/index.ts itself, run once in this process, its output captured. */
async function prepareCli(folder: string, run: Extract<CaseRun, { entry: 'cli' }>): Promise<Prepared> {
  // Everything main/cli/index.ts imports, loaded before idle is measured.
  const { parseCliArgs } = await import('../../main/cli/cli-args');
  const { validateCommand } = await import('../../main/cli/commands');
  await Promise.all([
    import('../../main/cli/send-command'),
    import('../../main/cli/resolve-command'),
    import('../../main/cli/watch-command'),
  ]);
  // Warm-up: the argument parser and a validate of a good manifest, their output dropped.
  const quiet: CliOutput = {
    json: false,
    say: () => undefined,
    error: () => undefined,
    event: () => undefined,
  };
  const warmUp = parseCliArgs(['validate', `${folder}/${WARM_UP_MANIFEST}`]);
  if (!warmUp.ok) throw new Error(warmUp.error.message);
  await validateCommand(warmUp.value, quiet);
  return {
    run: async () => {
      const stdout: string[] = [];
      const stderr: string[] = [];
      const writes = { out: process.stdout.write, err: process.stderr.write };
      process.stdout.write = ((chunk: string | Uint8Array) =>
        stdout.push(String(chunk)) > 0) as typeof process.stdout.write;
      process.stderr.write = ((chunk: string | Uint8Array) =>
        stderr.push(String(chunk)) > 0) as typeof process.stderr.write;
      process.argv = [process.argv[0] ?? 'node', 'main/cli/index.ts', ...run.argv];
      try {
        await import('../../main/cli/index');
      } finally {
        process.stdout.write = writes.out;
        process.stderr.write = writes.err;
      }
      const exitCode = process.exitCode ?? 0;
      process.exitCode = 0;
      return { exitCode, stdout: lines(stdout.join('')), stderr: lines(stderr.join('')) };
    },
    close: async () => undefined,
  };
}

/** The desk service over a real data folder and the real keychain, called as the renderer calls it. */
async function prepareApp(folder: string, run: Exclude<CaseRun, { entry: 'cli' }>): Promise<Prepared> {
  const { dispatchInvoke } = await import('../../main/app/ipc-dispatch');
  const { createKeytarCredentialStore } = await import('../../main/credentials/credential-store');
  const { openDataDir } = await import('../../main/app/desk-core');
  const { silentLogger } = await import('../../main/base/log');
  const { createTestDeskService } = await import('../support/desk-service-harness');
  const opened = await openDataDir(`${folder}/app-data`);
  if (!opened.ok) throw new Error(opened.error);
  const dataDir = opened.value;
  // A keychain service name of its own: nothing here may touch the app's real entries.
  const service = createTestDeskService(
    dataDir,
    createKeytarCredentialStore(`signing-batch-desk-test-${randomUUID()}`),
  );
  await service.start();
  const call = async (channel: string, ...args: unknown[]): Promise<IpcResult<unknown>> =>
    dispatchInvoke(service.handlers, channel, args, silentLogger);
  const valueOf = async (channel: string, ...args: unknown[]): Promise<unknown> => {
    const result = await call(channel, ...args);
    if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
    return result.value;
  };
  const batch = (await valueOf('batches.create', 'Bad input')) as { id: string };
  // Warm-up: the manifest check and the views every run reads, on good input.
  await valueOf('manifest.preview', `${folder}/${WARM_UP_MANIFEST}`);
  await valueOf('profiles.list');
  const before = { batch: await valueOf('batches.get', batch.id), profiles: await valueOf('profiles.list') };
  const errorOf = (result: IpcResult<unknown>) =>
    result.ok ? { value: result.value } : { error: result.error };
  return {
    run: async () => {
      switch (run.entry) {
        case 'app.manifest': {
          const preview = await call('manifest.preview', run.path);
          const imported = await call('manifest.import', batch.id, run.path);
          return {
            preview: preview.ok
              ? {
                  issues: (preview.value as { issues: { text: string }[] }).issues.map((issue) => issue.text),
                }
              : { error: preview.error },
            import: errorOf(imported),
            batchUnchanged: isDeepStrictEqual(await valueOf('batches.get', batch.id), before.batch),
          };
        }
        case 'app.documents': {
          const added = await call(
            'documents.addPaths',
            batch.id,
            run.paths,
            ...(run.folder === undefined ? [] : [run.folder]),
          );
          return {
            ...(added.ok ? (added.value as object) : { error: added.error }),
            batchUnchanged: isDeepStrictEqual(await valueOf('batches.get', batch.id), before.batch),
          };
        }
        case 'app.profiles': {
          const saved = await call('profiles.save', run.input);
          return {
            ...errorOf(saved),
            profilesUnchanged: isDeepStrictEqual(await valueOf('profiles.list'), before.profiles),
          };
        }
      }
    },
    close: async () => {
      await service.close();
      await dataDir.close();
    },
  };
}

async function main(): Promise<void> {
  const [folder, runJson] = process.argv.slice(2);
  if (!folder || !runJson) throw new Error('usage: case-child.mjs FOLDER RUN');
  const run = JSON.parse(runJson) as CaseRun;
  const prepared = run.entry === 'cli' ? await prepareCli(folder, run) : await prepareApp(folder, run);

  globalThis.gc?.();
  const idleBytes = process.memoryUsage().rss;
  const started = performance.now();
  const observed = await prepared.run();
  const ms = performance.now() - started;
  const peakBytes = process.resourceUsage().maxRSS * 1024;

  await prepared.close();
  const report: CaseChildReport = { ms, idleBytes, peakBytes, observed };
  process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`, () =>
    process.exit(1),
  );
});
