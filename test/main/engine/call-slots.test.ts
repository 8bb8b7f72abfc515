import { describe, expect, it } from 'vitest';
import { CallSlots } from '../../../main/engine/call-slots';

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
});
