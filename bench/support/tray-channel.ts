import { spawn } from 'node:child_process';

/** What the week-in-the-tray child is asked to do. */
export interface TrayJob {
  readonly days: number;
  /** The child tells the parent its clock at least this often (simulated ms). */
  readonly tickMs: number;
}

/** One simulated day, measured at its end. */
export interface TrayDay {
  readonly day: number;
  readonly reads: number;
  /** CPU of the child process during the day (its end-of-day bookkeeping excluded). */
  readonly cpuMs: number;
  /** Real time the simulated day took. */
  readonly realMs: number;
  /** After a full garbage collection. */
  readonly heapUsed: number;
  readonly rss: number;
  /** The batch journals (`batches/`), and the whole data folder (PDF copies included). */
  readonly batchesBytes: number;
  readonly batchesFiles: number;
  /** Entries in the journals since their last snapshot (the store compacts at 2,000). */
  readonly journalEntries: number;
  readonly dataBytes: number;
  /** Requests still tracked (not final, not gone) at the end of the day. */
  readonly open: number;
  /** Poller events since the start, by type. */
  readonly events: Readonly<Record<string, number>>;
}

export interface TrayResult {
  readonly tracked: number;
  readonly reads: number;
  readonly startHeapUsed: number;
  readonly startRss: number;
  readonly startDataBytes: number;
  readonly startBatchesBytes: number;
  readonly days: readonly TrayDay[];
}

export type TrayMessage =
  { readonly type: 'tick'; readonly now: number } | { readonly type: 'result'; readonly result: TrayResult };

/**
 * Runs the bundled tray child with `job` and calls `onTick` with its clock as it moves;
 * resolves with its result and what it wrote to stderr.
 */
export function runTrayChild(
  bundle: string,
  job: unknown,
  onTick: (now: number) => void,
  nodeFlags: readonly string[] = [],
): Promise<{ readonly result: TrayResult; readonly stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, bundle, JSON.stringify(job)], {
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    let stderr = '';
    let result: TrayResult | undefined;
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      stderr += text;
    });
    child.on('message', (message: TrayMessage) => {
      if (message.type === 'tick') onTick(message.now);
      else result = message.result;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (result) resolve({ result, stderr });
      else reject(new Error(`tray child exited (${signal ?? code}) without a result:\n${stderr}`));
    });
  });
}
