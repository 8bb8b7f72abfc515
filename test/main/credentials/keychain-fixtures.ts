import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { CredentialStore } from '../../../main/credentials/credential-store';

/** The repository root: child processes run from here so that `tsx` and `keytar` resolve. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The absolute path of a module of the repository, for scripts written to a temporary folder. */
export function repoModule(path: string): string {
  return join(REPO_ROOT, path);
}

/**
 * A keychain service name of its own for one test file, so that tests never touch the app's
 * real entries (nor another file's) even when run in a desktop session with a real keyring.
 */
export function testKeychainService(): string {
  return `signing-batch-desk-test-${randomUUID()}`;
}

/** A secret that is easy to find in any file or output: unique per call. */
export function distinctSecret(label: string): string {
  return `s3cret-${label}-${randomUUID()}`;
}

/**
 * Fails (never skips) when no Secret Service answers, saying how to get one: these tests are
 * about the real keychain, and `npm test` starts a private one.
 */
export async function requireKeychain(store: CredentialStore): Promise<void> {
  const probe = await store.probe();
  if (!probe.ok) {
    throw new Error(
      `The keychain tests need a Secret Service (${probe.error.detail}). Run them through "npm test", which starts a private D-Bus session with an unlocked GNOME Keyring, or run: dbus-run-session -- sh -c 'printf test | gnome-keyring-daemon --unlock --components=secrets >/dev/null && npx vitest run test/main/credentials'`,
    );
  }
}

/** Asserts that none of `secrets` appears in `value`, however it is turned into text. */
export function expectNoSecret(value: unknown, secrets: readonly string[]): void {
  const texts = [JSON.stringify(value) ?? '', String(value)];
  if (value instanceof Error) texts.push(value.message, value.stack ?? '');
  for (const text of texts) for (const secret of secrets) expect(text).not.toContain(secret);
}

/** Every file under `folder` (recursively) whose bytes contain one of `secrets`. */
export function filesContaining(folder: string, secrets: readonly string[]): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = readFileSync(path);
    if (
      secrets.some((secret) => bytes.includes(secret) || bytes.includes(JSON.stringify(secret).slice(1, -1)))
    ) {
      found.push(path);
    }
  }
  return found;
}

export interface ChildRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The environment of a process that has no D-Bus session (as on a server or in a bare
 * container): no session bus address, and no display that libdbus could autolaunch one from.
 */
export function environmentWithoutDbus(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.DBUS_SESSION_BUS_ADDRESS;
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  return env;
}

/** Runs `node ...args` from the repository root, to its end. */
export function runNode(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Writes `source` (TypeScript importing repository modules by `repoModule` paths) to
 * `<folder>/<name>.mts` and runs it with tsx in a process without a D-Bus session. Secrets go
 * through `env`, so that no file written by a test holds one.
 */
export function runScriptWithoutDbus(
  folder: string,
  name: string,
  source: string,
  env: Readonly<Record<string, string>> = {},
): Promise<ChildRun> {
  // .mts: outside the project there is no package.json saying the file is an ES module.
  const script = join(folder, `${name}.mts`);
  writeFileSync(script, source);
  return runNode(['--import', 'tsx', script], environmentWithoutDbus(env));
}

/** The last line of `stdout`, parsed as the JSON a child script printed. */
export function lastJsonLine(run: ChildRun): unknown {
  const line = run.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`the child printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
}
