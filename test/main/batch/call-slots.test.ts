import { describe, expect, it } from 'vitest';
import { CallSlots } from '../../../main/batch/call-slots';

/** Lets every pending promise callback run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('call slots', () => {
  it('never runs more calls at once than its size, and serves waiting calls in order', async () => {
    const slots = new CallSlots(2);
    const signal = new AbortController().signal;
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, () => deferred());
    const calls = gates.map((gate, index) =>
      slots.run(signal, async () => {
        started.push(index);
        running += 1;
        most = Math.max(most, running);
        await gate.promise;
        running -= 1;
        return index;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    for (const gate of gates) gate.resolve();
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });

  it('gives up a waiting call when its signal aborts, and frees the slot after a failed call', async () => {
    const slots = new CallSlots(1);
    const busy = deferred();
    const first = slots.run(new AbortController().signal, () => busy.promise);
    const controller = new AbortController();
    const waiting = slots.run(controller.signal, () => Promise.resolve('never'));
    controller.abort(new Error('paused'));
    await expect(waiting).rejects.toThrow('paused');
    busy.resolve();
    await first;
    await expect(
      slots.run(new AbortController().signal, () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    expect(await slots.run(new AbortController().signal, () => Promise.resolve('free'))).toBe('free');
  });

  it('runs a prepare while its call is among the next in line, and the call only after it', async () => {
    const slots = new CallSlots(1);
    const signal = new AbortController().signal;
    const busy = deferred();
    const events: string[] = [];
    const first = slots.run(signal, async () => {
      events.push('first call');
      await busy.promise;
    });
    const marker = deferred();
    const second = slots.run(
      signal,
      async () => {
        events.push('second call');
      },
      async () => {
        events.push('second prepare');
        await marker.promise;
        events.push('second prepared');
      },
    );
    const third = slots.run(
      signal,
      async () => {
        events.push('third call');
      },
      async () => {
        events.push('third prepare');
      },
    );
    await settle();
    // The prepare overlaps the call in flight; the one behind it in line waits its turn.
    expect(events).toEqual(['second prepare', 'first call']);
    busy.resolve();
    await first;
    await settle();
    // Its slot is free, but the call waits for its prepare to end.
    expect(events).toEqual(['second prepare', 'first call', 'third prepare']);
    marker.resolve();
    await Promise.all([second, third]);
    expect(events).toEqual([
      'second prepare',
      'first call',
      'third prepare',
      'second prepared',
      'second call',
      'third call',
    ]);
  });

  it('a stop while waiting lets a started prepare end first; a failed prepare fails its call', async () => {
    const slots = new CallSlots(1);
    const busy = deferred();
    const first = slots.run(new AbortController().signal, () => busy.promise);
    const controller = new AbortController();
    const marker = deferred();
    let prepared = false;
    let called = false;
    const waiting = slots.run(
      controller.signal,
      async () => {
        called = true;
      },
      async () => {
        await marker.promise;
        prepared = true;
      },
    );
    controller.abort(new Error('paused'));
    let settled = false;
    void waiting.catch(() => (settled = true));
    await settle();
    expect(settled).toBe(false);
    marker.resolve();
    await expect(waiting).rejects.toThrow('paused');
    expect(prepared).toBe(true);
    busy.resolve();
    await first;
    await expect(
      slots.run(
        new AbortController().signal,
        async () => {
          called = true;
        },
        () => Promise.reject(new Error('disk full')),
      ),
    ).rejects.toThrow('disk full');
    expect(called).toBe(false);
    expect(await slots.run(new AbortController().signal, () => Promise.resolve('free'))).toBe('free');
  });
});
