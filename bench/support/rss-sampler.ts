import { setTimeout as sleep } from 'node:timers/promises';

/** Memory figures of one phase of a run, from samples of `process.memoryUsage()`. */
export interface PhaseMemory {
  readonly phase: string;
  readonly durationMs: number;
  readonly samples: number;
  readonly medianRss: number;
  readonly peakRss: number;
  readonly peakHeapUsed: number;
  readonly peakExternal: number;
  readonly peakArrayBuffers: number;
}

interface Sample {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
}

/**
 * Samples this process's memory every `everyMs` (RSS, heap, external) and groups the samples
 * by phase, so idle and peak figures of setup, preparation and sending come from one timeline.
 */
export class RssSampler {
  readonly #everyMs: number;
  readonly #phases: { phase: string; startedAt: number; endedAt: number; samples: Sample[] }[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(everyMs: number) {
    this.#everyMs = everyMs;
  }

  /** Starts (or switches to) phase `phase`, taking a sample at once. */
  phase(phase: string): void {
    const now = performance.now();
    const current = this.#phases.at(-1);
    if (current) current.endedAt = now;
    this.#phases.push({ phase, startedAt: now, endedAt: now, samples: [] });
    this.#sample();
    this.#timer ??= setInterval(() => this.#sample(), this.#everyMs);
  }

  /** Runs `work` as phase `phase`. */
  async during<T>(phase: string, work: () => Promise<T>): Promise<T> {
    this.phase(phase);
    try {
      return await work();
    } finally {
      this.#sample();
    }
  }

  /** A quiet phase: garbage collected first when possible, then `ms` of sampling doing nothing. */
  async idle(phase: string, ms: number, collect: () => void): Promise<void> {
    collect();
    this.phase(phase);
    await sleep(ms);
  }

  #sample(): void {
    const current = this.#phases.at(-1);
    if (!current) return;
    const usage = process.memoryUsage();
    current.samples.push({
      rss: usage.rss,
      heapUsed: usage.heapUsed,
      external: usage.external,
      arrayBuffers: usage.arrayBuffers,
    });
    current.endedAt = performance.now();
  }

  /** Stops sampling and summarizes every phase. */
  stop(): PhaseMemory[] {
    this.#sample();
    clearInterval(this.#timer);
    this.#timer = undefined;
    return this.#phases.map(({ phase, startedAt, endedAt, samples }) => {
      const rss = samples.map((sample) => sample.rss).sort((a, b) => a - b);
      const peak = (pick: (sample: Sample) => number) => Math.max(...samples.map(pick));
      return {
        phase,
        durationMs: endedAt - startedAt,
        samples: samples.length,
        medianRss: rss[Math.floor(rss.length / 2)] ?? 0,
        peakRss: peak((sample) => sample.rss),
        peakHeapUsed: peak((sample) => sample.heapUsed),
        peakExternal: peak((sample) => sample.external),
        peakArrayBuffers: peak((sample) => sample.arrayBuffers),
      };
    });
  }
}
