import { spawn, type ChildProcess } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The command line's entry point, bundled once per test file so that each start is quick. */
const CLI_ENTRY = fileURLToPath(new URL('../../main/cli/index.ts', import.meta.url));

/**
 * Bundles `main/cli/index.ts` into `<outDir>/cli.mjs` (one self-contained ES module for Node 24)
 * and returns its path. A start then costs a plain `node` start instead of a TypeScript loader.
 */
export function bundleCli(outDir: string): Promise<string> {
  // keytar (the real OS keychain) stays outside the bundle and is imported by name at run time:
  // beside the bundle, node_modules leads to this repository's, as an installed app's would.
  symlinkSync(
    fileURLToPath(new URL('../../node_modules', import.meta.url)),
    join(outDir, 'node_modules'),
    'dir',
  );
  return bundleEntry(CLI_ENTRY, `${outDir}/cli.mjs`);
}

/** Bundles a TypeScript entry for plain Node into `outfile` (an ES module) and returns its path. */
export async function bundleEntry(entry: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    outfile,
    // Native or desktop-only modules stay outside; the command line loads them only when asked.
    // fs-native-extensions (the data folder's lock) loads its binary beside its own file, and the
    // bundle is written to a temporary folder: given by path, esbuild imports it from this
    // repository's node_modules through a relative path.
    external: [
      'keytar',
      'electron',
      `${fileURLToPath(new URL('../../node_modules/fs-native-extensions/', import.meta.url))}*`,
    ],
    // Bundled CommonJS dependencies call `require` for Node built-ins.
    banner: {
      js: "import { createRequire as __cliCreateRequire } from 'node:module'; const require = __cliCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return outfile;
}

/** Client credentials given to the child through its environment, as a user would. */
export interface CliCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface CliStartOptions {
  /** Put in SIGNING_CLIENT_ID / SIGNING_CLIENT_SECRET; `null` removes both from the environment. */
  readonly credentials: CliCredentials | null;
  /** Extra environment variables (undefined removes one). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
}

/** How a run ended, with everything it printed. */
export interface CliResult {
  /** Exit code; null when the process was killed by a signal. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A running command line process. */
export interface CliProcess {
  readonly pid: number;
  readonly startedAt: number;
  /** What it printed so far. */
  stdout(): string;
  stderr(): string;
  /** Called for each complete line of stdout, as soon as it arrives. */
  onStdoutLine(listener: (line: string) => void): void;
  /** True until the process has exited. */
  running(): boolean;
  /** Resolves when the process has exited and its output streams are closed. */
  readonly done: Promise<CliResult>;
  /** Kills it with SIGKILL (no chance to clean up) and waits for its end. */
  kill(): Promise<CliResult>;
}

/** Every process started here that has not ended yet, so a test can never leave one behind. */
const live = new Set<CliProcess>();

function environment(options: CliStartOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.SIGNING_CLIENT_ID;
  delete env.SIGNING_CLIENT_SECRET;
  // Diagnostics go to stderr only when a test asks for them.
  delete env.DESK_LOG;
  if (options.credentials) {
    env.SIGNING_CLIENT_ID = options.credentials.clientId;
    env.SIGNING_CLIENT_SECRET = options.credentials.clientSecret;
  }
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Starts `node cli.mjs ...args` with the same Node as the tests. */
export function startCli(cliPath: string, args: readonly string[], options: CliStartOptions): CliProcess {
  const child: ChildProcess = spawn(process.execPath, [cliPath, ...args], {
    env: environment(options),
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('the command line could not be started');
  const startedAt = Date.now();
  let stdout = '';
  let stderr = '';
  let partialLine = '';
  let exited = false;
  const lineListeners: ((line: string) => void)[] = [];
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    stdout += chunk;
    partialLine += chunk;
    const lines = partialLine.split('\n');
    partialLine = lines.pop() ?? '';
    for (const line of lines) for (const listener of lineListeners) listener(line);
  });
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      exited = true;
      resolve({ code, signal, stdout, stderr });
    });
  });
  const handle: CliProcess = {
    pid: child.pid,
    startedAt,
    stdout: () => stdout,
    stderr: () => stderr,
    onStdoutLine: (listener) => {
      lineListeners.push(listener);
    },
    running: () => !exited && child.exitCode === null && child.signalCode === null,
    done,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return done;
    },
  };
  live.add(handle);
  void done.finally(() => live.delete(handle)).catch(() => undefined);
  return handle;
}

/** Runs the command line to its end. */
export function runCli(
  cliPath: string,
  args: readonly string[],
  options: CliStartOptions,
): Promise<CliResult> {
  return startCli(cliPath, args, options).done;
}

/** Kills (SIGKILL) every command line process started by this test file that is still running. */
export async function killAllCli(): Promise<void> {
  await Promise.all([...live].map((cli) => cli.kill().catch(() => undefined)));
}

/** A `--json` line: one JSON object with a `type`. */
export type JsonEvent = { readonly type: string } & Readonly<Record<string, unknown>>;

/**
 * Parses `--json` output: every line must be one JSON object with a `type` (a test fails on
 * anything else). A process killed mid-line may leave a last line without its newline; it is
 * ignored when `allowTornLastLine` is set.
 */
export function parseJsonLines(stdout: string, options: { allowTornLastLine?: boolean } = {}): JsonEvent[] {
  const lines = stdout.split('\n');
  const last = lines.pop();
  if (last !== undefined && last !== '' && !options.allowTornLastLine) {
    throw new Error(`the output does not end with a newline: ${JSON.stringify(last)}`);
  }
  return lines.map((line, index) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`line ${index + 1} of the output is not JSON: ${JSON.stringify(line)}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error(`line ${index + 1} of the output is not a JSON object: ${line}`);
    }
    const type = (value as { type?: unknown }).type;
    if (typeof type !== 'string') throw new Error(`line ${index + 1} has no "type": ${line}`);
    return value as JsonEvent;
  });
}
