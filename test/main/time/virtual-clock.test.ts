import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../main/time/virtual-clock';

describe('the virtual clock', () => {
  it('runs timers in the order they fall due, at their due time, and only when time moves', async () => {
    const clock = new VirtualClock();
    const ran: string[] = [];
    clock.timer(300, () => ran.push(`c@${clock.monotonic()}`));
    clock.timer(100, () => ran.push(`a@${clock.monotonic()}`));
    clock.timer(100, () => ran.push(`b@${clock.monotonic()}`));
    expect(ran).toEqual([]);
    await clock.advance(250);
    expect(ran).toEqual(['a@100', 'b@100']);
    expect(clock.monotonic()).toBe(250);
    await clock.advance(50);
    expect(ran).toEqual(['a@100', 'b@100', 'c@300']);
  });

  it('cancels a timer and an interval, and aborts a sleep with its reason', async () => {
    const clock = new VirtualClock();
    let ticks = 0;
    const stop = clock.every(1_000, () => (ticks += 1));
    const cancel = clock.timer(500, () => (ticks += 100));
    cancel();
    await clock.advance(3_500);
    expect(ticks).toBe(3);
    stop();
    await clock.advance(10_000);
    expect(ticks).toBe(3);
    const controller = new AbortController();
    const slept = clock.sleep(60_000, controller.signal);
    controller.abort(new Error('paused'));
    await expect(slept).rejects.toThrow('paused');
    expect(clock.pendingTimers).toBe(0);
  });

  it('runs a timer and an interval in the context they were set in, as Node’s timers do, not the context of whoever moves time', async () => {
    const clock = new VirtualClock();
    const context = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    context.run('setter', () => {
      clock.timer(100, () => seen.push(context.getStore()));
      const stop = clock.every(100, () => {
        seen.push(context.getStore());
        if (seen.length >= 3) stop();
      });
    });
    await context.run('mover', () => clock.advance(250));
    expect(seen).toEqual(['setter', 'setter', 'setter']);
  });

  it('moves the wall clock with monotonic time, and sets it back without moving timers', async () => {
    const clock = new VirtualClock({ startAt: Date.UTC(2026, 5, 1) });
    await clock.advance(90_000);
    expect(new Date(clock.now()).toISOString()).toBe('2026-06-01T00:01:30.000Z');
    let fired = false;
    clock.timer(10_000, () => (fired = true));
    clock.setWallClock(Date.UTC(2026, 4, 31));
    expect(clock.monotonic()).toBe(90_000);
    await clock.advance(9_999);
    expect(fired).toBe(false);
    await clock.advance(1);
    expect(fired).toBe(true);
  });

  it('runs an hour of a loop that sleeps and does real file work in between, without waiting an hour', async () => {
    const clock = new VirtualClock();
    const folder = await mkdtemp(join(tmpdir(), 'virtual-clock-'));
    const file = join(folder, 'count');
    await writeFile(file, '0');
    let stop = false;
    const loop = (async () => {
      while (!stop) {
        await clock.sleep(60_000);
        const count = Number(await readFile(file, 'utf8'));
        await writeFile(file, String(count + 1));
      }
    })();
    await clock.runUntil(async () => Number(await readFile(file, 'utf8')) >= 60, { what: 'sixty reads' });
    stop = true;
    // Every file write finished before the next jump: exactly one per virtual minute.
    expect(clock.monotonic()).toBe(3_600_000);
    expect(Number(await readFile(file, 'utf8'))).toBe(60);
    await clock.advance(60_000);
    await loop;
    await rm(folder, { recursive: true, force: true });
  });

  it('does not jump over a call on the wire while it waits for outcomes', async () => {
    const clock = new VirtualClock();
    let deadlinePassed = false;
    clock.timer(30_000, () => (deadlinePassed = true));
    const done = clock.busy();
    let answered = false;
    setTimeout(() => {
      answered = true;
      done();
    }, 20);
    await clock.runUntil(() => answered, { what: 'the answer' });
    expect(deadlinePassed).toBe(false);
    expect(clock.monotonic()).toBe(0);
  });

  it('lets time run to the answer of a call its far end holds on the clock (a latency)', async () => {
    const clock = new VirtualClock();
    let deadlinePassed = false;
    clock.timer(30_000, () => (deadlinePassed = true));
    const done = clock.busy();
    let answered = false;
    void clock.callWaits(1_000).then(() => {
      answered = true;
      done();
    });
    await clock.runUntil(() => answered, { what: 'the answer' });
    expect(clock.monotonic()).toBe(1_000);
    expect(deadlinePassed).toBe(false);
  });

  it('lets time run while the far end holds a call (a shaped line carrying a piece), and holds it again once released', async () => {
    const clock = new VirtualClock();
    const done = clock.busy();
    const release = clock.holdsCall();
    let crossed = false;
    let later = false;
    clock.timer(1_000, () => {
      release();
      crossed = true;
      // The far end reads the next bytes for real: the call is real work again.
      setTimeout(() => (answered = true), 30);
    });
    clock.timer(2_000, () => (later = true));
    let answered = false;
    await clock.runUntil(() => crossed, { what: 'the piece across the line' });
    expect(clock.monotonic()).toBe(1_000);
    await clock.runUntil(() => answered, { what: 'the answer' });
    done();
    expect(clock.monotonic()).toBe(1_000);
    expect(later).toBe(false);
  });

  it('forgets a call given up while its far end held it: another call doing real work still holds time', async () => {
    const clock = new VirtualClock();
    let deadlinePassed = false;
    clock.timer(30_000, () => (deadlinePassed = true));
    const givenUp = clock.busy();
    const hungUp = new AbortController();
    const farEnd = clock.callWaits(5_000, hungUp.signal);
    const real = clock.busy();
    let answered = false;
    // The first call is given up; its far end sees the connection close on the next turn of the
    // event loop (a reset on loopback), before the clock would call the process quiet.
    givenUp();
    setImmediate(() => hungUp.abort());
    setTimeout(() => {
      answered = true;
      real();
    }, 30);
    await clock.runUntil(() => answered, { what: 'the real call' });
    expect(deadlinePassed).toBe(false);
    expect(clock.monotonic()).toBe(0);
    // The far end still takes its time over the call given up.
    await clock.advance(5_000);
    await farEnd;
  });

  it('says what it waited for when the outcome never comes', async () => {
    const clock = new VirtualClock();
    clock.every(1_000, () => undefined);
    await expect(clock.runUntil(() => false, { withinMs: 10_000, what: 'a completion' })).rejects.toThrow(
      /a completion did not come within 10 s of virtual time/,
    );
  });
});
