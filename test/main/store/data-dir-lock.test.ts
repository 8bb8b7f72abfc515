import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDataDir } from '../../../main/app/desk-core';
import { lockDataDir, type LockHolder } from '../../../main/store/data-dir-lock';
import { bundleEntry } from '../../support/cli-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

/** One answer of the child process (see data-dir-lock-child.ts). */
interface ChildAnswer {
  readonly op: string;
  readonly dir: string;
  readonly result: 'acquired' | 'refused' | 'released' | 'error';
  readonly holder?: LockHolder | null;
  readonly message?: string;
  readonly error?: string;
}

/** A warm child process that takes and releases data folders on command. */
interface LockChild {
  readonly pid: number;
  /** Date.now() just before it was spawned. */
  readonly spawnedAt: number;
  send(op: 'lock' | 'open' | 'release', dir: string): Promise<ChildAnswer>;
  /** SIGKILL, then waits until the process is gone. */
  kill(): Promise<void>;
}

const CHILD_ENTRY = fileURLToPath(new URL('./data-dir-lock-child.ts', import.meta.url));
const TIME_PATTERN = /running since \d{4}-\d{2}-\d{2} \d{2}:\d{2}\)/;

let bundle: TempFolder;
let childPath: string;
let folder: TempFolder;
const children = new Set<LockChild>();

function startChild(): LockChild {
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, [childPath], { stdio: ['pipe', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error('the lock child could not be started');
  const waiting: { resolve(answer: ChildAnswer): void; reject(error: Error): void }[] = [];
  let partial = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    partial += chunk;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) waiting.shift()?.resolve(JSON.parse(line) as ChildAnswer);
  });
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolveExit) => {
    child.once('close', () => {
      for (const pending of waiting.splice(0)) pending.reject(new Error(`the lock child exited: ${stderr}`));
      resolveExit();
    });
  });
  const handle: LockChild = {
    pid: child.pid,
    spawnedAt,
    send: (op, dir) =>
      new Promise<ChildAnswer>((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(`${JSON.stringify({ op, dir })}\n`);
      }),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  children.add(handle);
  void exited.then(() => children.delete(handle));
  return handle;
}

function ownerFile(dir: string): LockHolder {
  return JSON.parse(readFileSync(join(dir, 'lock-owner.json'), 'utf8')) as LockHolder;
}

function writeOwnerFile(dir: string, holder: LockHolder): void {
  writeFileSync(join(dir, 'lock-owner.json'), JSON.stringify(holder));
}

beforeAll(async () => {
  bundle = makeTempFolder('desk-lock-bundle-');
  childPath = await bundleEntry(CHILD_ENTRY, join(bundle.path, 'lock-child.mjs'));
}, 60_000);

afterEach(async () => {
  await Promise.all([...children].map((child) => child.kill()));
  folder?.remove();
});

afterAll(() => bundle?.remove());

describe('lockDataDir', () => {
  it('refuses a second process while the first holds the folder, names the holder, and lets a third in after release', async () => {
    folder = makeTempFolder('desk-lock-');
    const dir = folder.file('data');
    const first = startChild();
    expect(await first.send('lock', dir)).toMatchObject({ result: 'acquired' });
    const owner = ownerFile(dir);
    expect(owner).toMatchObject({ host: hostname(), pid: first.pid });
    expect(Date.parse(owner.processStartedAt)).toBeGreaterThan(first.spawnedAt - 1000);
    expect(Date.parse(owner.processStartedAt)).toBeLessThanOrEqual(Date.parse(owner.lockedAt));

    const second = startChild();
    const refused = await second.send('open', dir);
    expect(refused.result).toBe('refused');
    expect(refused.message).toContain(
      `The data folder ${dir} is in use by another process (pid ${first.pid} on this computer, running since `,
    );
    expect(refused.message).toMatch(TIME_PATTERN);
    expect((await second.send('lock', dir)).holder).toEqual(owner);

    expect(await first.send('release', dir)).toMatchObject({ result: 'released' });
    // The lock file stays; only the owner's name goes.
    expect(existsSync(join(dir, 'lock'))).toBe(true);
    expect(existsSync(join(dir, 'lock-owner.json'))).toBe(false);
    const third = startChild();
    expect(await third.send('lock', dir)).toMatchObject({ result: 'acquired' });
    expect(ownerFile(dir).pid).toBe(third.pid);
    expect((await second.send('lock', dir)).holder?.pid).toBe(third.pid);
  });

  it('lets a new process take the folder at once after its holder was killed with SIGKILL', async () => {
    folder = makeTempFolder('desk-lock-');
    const dir = folder.file('data');
    const holder = startChild();
    const next = startChild();
    expect(await holder.send('lock', dir)).toMatchObject({ result: 'acquired' });
    expect((await next.send('lock', dir)).result).toBe('refused');
    await holder.kill();
    // The killed holder's files are still there: a stale owner file naming a dead process.
    expect(ownerFile(dir).pid).toBe(holder.pid);
    // One attempt, no waiting: the kernel freed the lock with the killed process.
    expect(await next.send('lock', dir)).toMatchObject({ result: 'acquired' });
    expect(ownerFile(dir).pid).toBe(next.pid);
  });

  it('is not blocked by a stale owner file or lock file naming a live, unrelated process (a recycled pid)', async () => {
    folder = makeTempFolder('desk-lock-');
    const child = startChild();
    const startedAt = new Date(Date.now() - 60_000).toISOString();
    for (const pid of [process.pid, 1]) {
      const dir = folder.file(`data-${pid}`);
      expect(await child.send('lock', dir)).toMatchObject({ result: 'acquired' });
      await child.send('release', dir);
      // As a crashed holder, or an earlier version of the app, would have left them.
      writeFileSync(join(dir, 'lock'), String(pid));
      writeOwnerFile(dir, { host: hostname(), pid, processStartedAt: startedAt, lockedAt: startedAt });
      const other = startChild();
      expect(await other.send('lock', dir)).toMatchObject({ result: 'acquired' });
      expect(ownerFile(dir).pid).toBe(other.pid);
    }
  });

  it('respects a live holder whose owner file names another computer, and names that computer', async () => {
    folder = makeTempFolder('desk-lock-');
    const dir = folder.file('data');
    const holder = startChild();
    expect(await holder.send('lock', dir)).toMatchObject({ result: 'acquired' });
    // What a holder on a network drive looks like from here: the server holds its lock, and its
    // owner file names its own host and a pid that means nothing on this computer.
    const remote = {
      host: 'ws-42',
      pid: 999_999,
      processStartedAt: '2026-11-23T08:12:00.000Z',
      lockedAt: '2026-11-23T08:13:00.000Z',
    };
    writeOwnerFile(dir, remote);
    const contender = startChild();
    const refused = await contender.send('open', dir);
    expect(refused.result).toBe('refused');
    expect(refused.message).toContain(`in use by another process (pid 999999 on host ws-42, running since `);
    expect(refused.message).toMatch(TIME_PATTERN);
    expect((await contender.send('lock', dir)).holder).toEqual(remote);
  });

  it('refuses a second lock in the same process, and reports an unreadable owner file as unknown', async () => {
    folder = makeTempFolder('desk-lock-');
    const dir = folder.file('data');
    const first = await lockDataDir(dir);
    expect(first.ok).toBe(true);
    writeFileSync(join(dir, 'lock-owner.json'), '{"host":"\u0007bell","pid":-1}');
    expect(await lockDataDir(dir)).toEqual({ ok: false, error: undefined });
    // Also through another spelling of the same path.
    expect((await lockDataDir(`${join(dir, '..', 'data')}/`)).ok).toBe(false);
    writeFileSync(join(dir, 'lock-owner.json'), 'x'.repeat(100_000));
    const opened = await openDataDir(dir);
    expect(opened).toEqual({
      ok: false,
      error: `The data folder ${dir} is in use by another process. Close it or wait for it to finish.`,
    });
    if (!first.ok) return;
    await first.value.release();
    await first.value.release();
    const again = await lockDataDir(dir);
    expect(again.ok).toBe(true);
    if (again.ok) await again.value.release();
  });

  it('the race: from a stale lock, exactly one of 4 processes started at once takes the folder, in each of 100 rounds', async () => {
    folder = makeTempFolder('desk-lock-race-');
    const rounds = 100;
    const racerCount = 4;
    const dirs = Array.from({ length: rounds }, (_, round) => folder.file(`round-${round}`));
    // Each round starts from a stale lock: one process takes every round's folder, then dies by SIGKILL.
    const crashed = startChild();
    for (const dir of dirs) expect((await crashed.send('lock', dir)).result).toBe('acquired');
    await crashed.kill();
    for (const dir of dirs) {
      expect(existsSync(join(dir, 'lock'))).toBe(true);
      expect(ownerFile(dir).pid).toBe(crashed.pid);
    }

    const racers = Array.from({ length: racerCount }, () => startChild());
    const holdersPerRound: number[] = [];
    const refusals = { namingTheHolder: 0, namingNobody: 0, namingAnother: 0 };
    const errors: string[] = [];
    for (const [round, dir] of dirs.entries()) {
      // Rotated, so that each racer is sometimes the first to be asked.
      const order = racers.map((_, index) => racers[(index + round) % racerCount]!);
      // Every command is written before any answer is read: the 4 take the folder at once.
      const answers = await Promise.all(order.map((racer) => racer.send('lock', dir)));
      const holders = order.filter((_, index) => answers[index]!.result === 'acquired');
      holdersPerRound.push(holders.length);
      for (const answer of answers) {
        if (answer.result === 'error') errors.push(`round ${round}: ${answer.error}`);
        if (answer.result !== 'refused') continue;
        const named = answer.holder?.pid;
        if (named === undefined) refusals.namingNobody += 1;
        else if (holders.some((holder) => holder.pid === named)) refusals.namingTheHolder += 1;
        else refusals.namingAnother += 1;
      }
      // The holder keeps the folder until all 4 have answered, then lets it go.
      await Promise.all(holders.map((holder) => holder.send('release', dir)));
    }

    const distribution: Record<number, number> = {};
    for (const count of holdersPerRound) distribution[count] = (distribution[count] ?? 0) + 1;
    console.log(
      `race: ${rounds} rounds of ${racerCount} processes from a stale lock; rounds by number of holders ${JSON.stringify(distribution)}; ` +
        `refusals naming the holder ${refusals.namingTheHolder}, naming nobody yet ${refusals.namingNobody}, naming another process ${refusals.namingAnother}; errors ${errors.length}`,
    );
    expect(distribution).toEqual({ 1: rounds });
    expect(errors).toEqual([]);
    expect(refusals.namingAnother).toBe(0);
  }, 60_000);
});
