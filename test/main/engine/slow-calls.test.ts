import { clockReading } from '../../support/clocks';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { SLOW_CALL_MS, SlowCalls } from '../../../main/engine/slow-calls';
import { lineMs } from '../../../main/client/upload-timing';

let clock = 0;
let said: boolean[];
let calls: SlowCalls;

beforeEach(() => {
  vi.useFakeTimers();
  clock = 0;
  said = [];
  calls = new SlowCalls((slow) => said.push(slow), { clock: clockReading(() => clock) });
});
afterEach(() => {
  calls.close();
  vi.useRealTimers();
});

function pass(ms: number): void {
  clock += ms;
  vi.advanceTimersByTime(ms);
}

it('an upload handed over at once owes no answer before its bytes can have crossed a slow line; then silence is slowness', () => {
  const size = 3 * 1024 * 1024;
  const call = calls.begin();
  // The system takes the whole body into its buffers at once: nothing more is seen of it.
  pass(20);
  calls.alive(call, lineMs(size, undefined));
  expect(lineMs(size, undefined)).toBeCloseTo(50_331.6, 0); // 3 MiB at 0.5 Mbit/s, the slowest line
  pass(50_332 - 20 + SLOW_CALL_MS - 300);
  expect(said).toEqual([]);
  // The bytes may all be there; the service says nothing: it is slow to answer.
  pass(600);
  expect(said).toEqual([true]);
  calls.end(call);
  expect(said).toEqual([true, false]);
});

it('a call silent from the start (a small request, or an upload that stalls): slow after SLOW_CALL_MS', () => {
  const call = calls.begin();
  calls.alive(call, lineMs(10_000, undefined)); // a small PDF: 153 ms on the slowest line
  pass(SLOW_CALL_MS - 300);
  expect(said).toEqual([]);
  pass(600);
  expect(said).toEqual([true]);
  calls.end(call);
});

it('a late call given up with no answer leaves the run slow through the next attempt, until the service answers', () => {
  const first = calls.begin();
  pass(SLOW_CALL_MS + 300);
  expect(said).toEqual([true]);
  // Its deadline strikes: no answer. The service is as silent as it was.
  calls.end(first, false);
  expect(said).toEqual([true]);
  // The next attempt leaves (after a short wait): not "on time" again for its first two seconds.
  pass(500);
  const second = calls.begin();
  pass(SLOW_CALL_MS - 500);
  expect(said).toEqual([true]);
  // An answer (even a refusal) comes: slow no more.
  calls.end(second, true);
  expect(said).toEqual([true, false]);
});

it('a call refused at once (not late) does not make the run slow; an old call given up after answers came again says nothing', () => {
  calls.end(calls.begin(), false);
  pass(SLOW_CALL_MS * 2);
  expect(said).toEqual([]);
  const old = calls.begin();
  pass(SLOW_CALL_MS + 300);
  expect(said).toEqual([true]);
  // Another call is answered while the old one still hangs: the old one alone keeps the run slow…
  calls.end(calls.begin(), true);
  expect(said).toEqual([true]);
  // …and once it is given up, the service is known to answer again.
  calls.end(old, false);
  expect(said).toEqual([true, false]);
});
