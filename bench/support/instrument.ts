import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Count and total duration of one kind of operation. */
export interface Timing {
  count: number;
  totalMs: number;
}

/** Timings by operation name, filled by `timeMethod`. */
export type Timings = Map<string, Timing>;

/** Mean duration of `name` in `timings`, NaN when it never ran. */
export function meanMs(timings: Timings, name: string): number {
  const timing = timings.get(name);
  return timing && timing.count > 0 ? timing.totalMs / timing.count : Number.NaN;
}

/**
 * Replaces the async method `name` of one object (not its class) by a wrapper that adds the
 * duration of every call to `timings`. For diagnostic runs only: the measured runs are never
 * wrapped.
 */
export function timeMethod<T extends object>(target: T, name: keyof T & string, timings: Timings): void {
  const original = target[name];
  if (typeof original !== 'function') throw new TypeError(`${name} is not a method`);
  const bound = (original as (...args: unknown[]) => Promise<unknown>).bind(target);
  const wrapper = async (...args: unknown[]): Promise<unknown> => {
    const started = performance.now();
    try {
      return await bound(...args);
    } finally {
      const timing = timings.get(name) ?? { count: 0, totalMs: 0 };
      timing.count += 1;
      timing.totalMs += performance.now() - started;
      timings.set(name, timing);
    }
  };
  Object.defineProperty(target, name, { value: wrapper, configurable: true, writable: true });
}

/** Median and 90th percentile of a list of durations. */
export function percentiles(values: readonly number[]): { readonly p50: number; readonly p90: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
  return { p50: at(0.5) ?? Number.NaN, p90: at(0.9) ?? Number.NaN };
}

/**
 * How long one small durable append takes on the disk of `folder`: a journal-sized line
 * written then fdatasync'ed, as the app's journal does for every recorded event. Appends
 * are `gapMs` apart (disks in virtual machines flush slower after a pause).
 */
export async function probeDurableAppend(
  folder: string,
  gapMs: number,
  samples = 60,
): Promise<{ readonly p50: number; readonly p90: number }> {
  const handle = await open(join(folder, `fsync-probe-${gapMs}.log`), 'a');
  const durations: number[] = [];
  try {
    const line = `${'x'.repeat(300)}\n`;
    for (let index = 0; index < samples; index += 1) {
      if (gapMs > 0) await sleep(gapMs);
      const started = performance.now();
      await handle.write(line);
      await handle.datasync();
      durations.push(performance.now() - started);
    }
  } finally {
    await handle.close();
  }
  return percentiles(durations);
}
