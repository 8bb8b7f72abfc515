// A process that takes and releases data folders on command, for the lock tests. It reads one
// JSON command a line on stdin and answers each, in order, with one JSON line on stdout:
//   {"op":"lock","dir":D}    → {"op":"lock","dir":D,"result":"acquired"|"refused"|"error",…}
//   {"op":"open","dir":D}    → the same through openDataDir, with its message when refused
//   {"op":"release","dir":D} → {"op":"release","dir":D,"result":"released"}
// Each command opens and closes its own file descriptor, as a new process would.
import { createInterface } from 'node:readline';
import { openDataDir } from '../../../main/app/desk-core';
import { lockDataDir } from '../../../main/store/data-dir-lock';

interface Command {
  readonly op: 'lock' | 'open' | 'release';
  readonly dir: string;
}

const held = new Map<string, () => Promise<void>>();

async function answer(command: Command): Promise<Record<string, unknown>> {
  const { op, dir } = command;
  try {
    if (op === 'release') {
      await held.get(dir)?.();
      held.delete(dir);
      return { op, dir, result: 'released' };
    }
    if (op === 'open') {
      const opened = await openDataDir(dir);
      if (!opened.ok) return { op, dir, result: 'refused', message: opened.error };
      held.set(dir, () => opened.value.close());
      return { op, dir, result: 'acquired' };
    }
    const lock = await lockDataDir(dir);
    if (!lock.ok) return { op, dir, result: 'refused', holder: lock.error ?? null };
    held.set(dir, () => lock.value.release());
    return { op, dir, result: 'acquired' };
  } catch (error) {
    return { op, dir, result: 'error', error: error instanceof Error ? error.message : String(error) };
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  process.stdout.write(`${JSON.stringify(await answer(JSON.parse(line) as Command))}\n`);
}
