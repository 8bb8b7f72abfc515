import { describe, expect, it } from 'vitest';
import { DueQueue } from '../../../main/tracking/due-queue';

const everyKey = () => true;

describe('due queue', () => {
  it('gives the key due first, whatever order the keys were scheduled in', () => {
    const queue = new DueQueue();
    const dues = [50, 10, 40, 30, 20, 60, 5, 45];
    dues.forEach((due, index) => queue.set(`r${index}`, due));
    const order: number[] = [];
    for (let slot = queue.first(everyKey); slot; slot = queue.first(everyKey)) {
      order.push(slot.due);
      queue.delete(slot.key);
    }
    expect(order).toEqual([...dues].sort((a, b) => a - b));
  });

  it('keeps only the latest time of a rescheduled key, and forgets deleted keys', () => {
    const queue = new DueQueue();
    queue.set('a', 10);
    queue.set('b', 20);
    queue.set('c', 30);
    queue.set('a', 25); // read, then rescheduled later
    queue.delete('b'); // final
    expect(queue.first(everyKey)).toEqual({ key: 'a', due: 25 });
    expect(queue.dueOf('a')).toBe(25);
    expect(queue.dueOf('b')).toBeUndefined();
  });

  it('drops keys the caller no longer tracks', () => {
    const queue = new DueQueue();
    queue.set('gone', 1);
    queue.set('open', 2);
    expect(queue.first((key) => key !== 'gone')).toEqual({ key: 'open', due: 2 });
    expect(queue.dueOf('gone')).toBeUndefined();
  });

  it('stays right when one key is rescheduled many times', () => {
    const queue = new DueQueue();
    for (let index = 0; index < 100; index += 1) queue.set(`r${index}`, 1_000 + index);
    for (let round = 0; round < 10_000; round += 1) queue.set('r0', 2_000 + round);
    expect(queue.first(everyKey)).toEqual({ key: 'r1', due: 1_001 });
    queue.delete('r1');
    expect(queue.first(everyKey)).toEqual({ key: 'r2', due: 1_002 });
  });
});
