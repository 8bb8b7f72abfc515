/**
 * The command line run in the test's own process, on the test's virtual clock: the same
 * argument parsing, commands and output as `node cli.mjs` (main/cli/run-command.ts), with the
 * credentials in the environment as a user gives them, but its backoffs, Retry-After holds,
 * read spacing and status reads take no real time. Suites whose point is the process itself
 * (a kill, two processes at once, what reaches the real stderr) start it as a child instead
 * (cli-process.ts).
 */
import { runCommand } from '../../main/cli/run-command';
import type { VirtualClock } from '../../main/time/virtual-clock';
import type { CliResult, CliStartOptions } from './cli-process';

export interface CliHereOptions extends Omit<CliStartOptions, 'cwd'> {
  /** The clock of the command and of the simulator it talks to. */
  readonly clock: VirtualClock;
  /** Called for each line of stdout as it is written (the `--json` events as they happen). */
  readonly onStdoutLine?: (line: string) => void;
  /**
   * Called whenever the run is quiet (no call on the wire, no file operation) and its clock is
   * about to move: a test reacts there to what the service has seen, before any timer runs.
   */
  readonly beforeClockMoves?: () => void;
}

/** The environment variables a run sets, as the child's environment would have them. */
function environmentFor(options: CliHereOptions): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    SIGNING_CLIENT_ID: options.credentials?.clientId,
    SIGNING_CLIENT_SECRET: options.credentials?.clientSecret,
    // Diagnostics go to stderr only when a test asks for them.
    DESK_LOG: undefined,
  };
  return { ...env, ...options.env };
}

function setEnvironment(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

let running = false;

/**
 * Runs `args` as the command line would and lets the clock run until it ends. One at a time:
 * the environment is this process's for the length of the run, then restored.
 */
export async function runCliHere(args: readonly string[], options: CliHereOptions): Promise<CliResult> {
  if (running) throw new Error('runCliHere runs one command at a time (the environment is shared)');
  running = true;
  const wanted = environmentFor(options);
  const saved = Object.fromEntries(Object.keys(wanted).map((name) => [name, process.env[name]]));
  let stdout = '';
  let stderr = '';
  let partialLine = '';
  setEnvironment(wanted);
  // Diagnostics (DESK_LOG=json) go to the process's stderr, as the child's would: kept for the run.
  const processStderr = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stderr.write;
  try {
    let ended = false;
    const command = runCommand(
      args,
      {
        stdout: (text) => {
          stdout += text;
          partialLine += text;
          const lines = partialLine.split('\n');
          partialLine = lines.pop() ?? '';
          for (const line of lines) options.onStdoutLine?.(line);
        },
        stderr: (text) => {
          stderr += text;
        },
      },
      { clock: options.clock },
    ).finally(() => {
      ended = true;
    });
    command.catch(() => undefined);
    await options.clock.runUntil(
      () => {
        if (!ended) options.beforeClockMoves?.();
        return ended;
      },
      { what: `the command ${args.slice(0, 2).join(' ')}` },
    );
    const code = await command;
    return { code, signal: null, stdout, stderr };
  } finally {
    process.stderr.write = processStderr;
    setEnvironment(saved);
    running = false;
  }
}
