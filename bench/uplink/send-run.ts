import { performance } from 'node:perf_hooks';
import type { SendSummary } from '../../main/engine/send-events';
import { openDesk } from '../../main/app/desk-core';
import { Secret } from '../../main/base/secret';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../simulator/simulator';
import { makeTempFolder } from '../../test/support/pdf-files';
import { prepareBatch } from '../support/batch-setup';
import { writeBenchDocuments } from '../support/bench-documents';
import { formatMiB, formatMs, progress } from '../support/report';
import { kernelQueues, type KernelQueues } from './kernel-queues';
import { ProgressGap } from './progress-gap';
import { describeSize, lineMs, type RunSize } from './run-size';
import { UploadWatch, type AttemptRecord } from './upload-watch';

/**
 * One uplink scenario's send: real PDFs through the app's own desk (its data folder, engine,
 * client and default settings: no concurrency, deadline or retry is chosen here) to the
 * simulator behind a shared line, watched from outside (see UploadWatch and ProgressGap). A run
 * that has not finished by its cap is paused there, so a line the app cannot use ends too.
 */

/** Latency the simulator adds to every answer, as in the other sending benchmarks. */
export const LATENCY_MS = 25;
const SAMPLE_MS = 100;
/** Kernel queues are read with `ss` (a process) every this many samples. */
const KERNEL_SAMPLE_EVERY = 10;
/** A run is paused at this many times what the line needs (and at least CAP_SLACK_MS more). */
export const CAP_FACTOR = 1.5;
const CAP_SLACK_MS = 30_000;
/** How long a pause at the cap lets calls on their way finish. */
const DRAIN_MS = 1_000;

export interface SendRunOptions {
  /** Names the run in progress notes and its temporary folder. */
  readonly label: string;
  /** The shared line's rate (`uploadMbit`). */
  readonly mbit: number;
  readonly size: RunSize;
  readonly seed: number;
  /** Time the scenario takes the line away (a stall), added to what the line needs. */
  readonly lineLostMs?: number;
  /** Called every SAMPLE_MS while sending (a scenario that stalls the line does it here). */
  readonly onTick?: (tick: { readonly sim: Simulator; readonly elapsedMs: number }) => void;
}

export interface SendRunResult {
  readonly summary: SendSummary;
  readonly wallMs: number;
  /** What the line needs for every byte, plus the time it was taken away. */
  readonly idealMs: number;
  readonly capMs: number;
  /** True when the run was paused at its cap, unfinished. */
  readonly capped: boolean;
  readonly totalBytes: number;
  /** Bytes of the documents prepared by the end (the engine's summary). */
  readonly preparedBytes: number;
  /** Upload bytes the service received in all, every attempt's (what the line carried). */
  readonly lineCarriedBytes: number;
  /**
   * Upload calls in the service's log at the end. It can lag the app: an attempt the app cut is
   * logged once the simulator has read what the system still held of it, at the line's pace.
   */
  readonly serviceUploadCalls: number;
  /** Upload attempts per document, as they left the app (undici's diagnostics channel). */
  readonly attemptsPerDocument: readonly number[];
  readonly attempts: readonly AttemptRecord[];
  readonly referenceOf: ReadonlyMap<string, string>;
  readonly gap: ProgressGap;
  /** When each document was prepared, in order (ms from the start of the send). */
  readonly preparedAtMs: readonly number[];
  /** The largest kernel queues seen, and how many uploads were on their way then. */
  readonly largestKernelQueue: { readonly queues: KernelQueues; readonly uploading: number } | undefined;
  /** "The service is slow to answer" told to the desk, and how often while upload bytes still moved. */
  readonly slowBanner: { readonly shown: number; readonly whileBytesMoved: number };
}

/** Sends one scenario's documents and measures it; see the file comment. */
export async function sendThroughLine(options: SendRunOptions): Promise<SendRunResult> {
  const { size, mbit } = options;
  const folder = makeTempFolder(`bench-${options.label}-`);
  const sim = await startSimulator({ seed: options.seed, uploadMbit: mbit });
  const port = Number(new URL(sim.baseUrl).port);
  try {
    sim.faults.set({ latencyMs: LATENCY_MS });
    progress(`${options.label}: writing ${describeSize(size.documents, size.documentBytes)} PDFs`);
    const sources = await writeBenchDocuments(folder, {
      count: size.documents,
      sizeBytes: size.documentBytes,
      title: `Uplink ${options.label}`,
      referencePrefix: 'UP',
    });
    const opening = await openDesk({
      dataDir: folder.file('data'),
      connection: {
        baseUrl: sim.baseUrl,
        clientId: DEMO_CLIENT.clientId,
        clientSecret: new Secret(DEMO_CLIENT.clientSecret),
      },
      drainMs: DRAIN_MS,
    });
    if (!opening.ok) throw new Error(opening.error);
    const desk = opening.value;
    try {
      const batch = await prepareBatch(desk, `Uplink ${options.label}`, sources);
      const sizes = new Map(batch.documents.map(({ draft }) => [draft.id, draft.pdf.sizeBytes]));
      const referenceOf = new Map(batch.documents.map(({ draft }) => [draft.id, draft.externalReference]));
      const totalBytes = [...sizes.values()].reduce((sum, bytes) => sum + bytes, 0);
      const idealMs = lineMs(totalBytes, mbit) + (options.lineLostMs ?? 0);
      const capMs = Math.max(CAP_FACTOR * idealMs, idealMs + CAP_SLACK_MS);

      const watch = new UploadWatch(
        sim,
        batch.documents.map(({ draft }) => ({
          id: draft.id,
          filename: draft.pdf.originalName,
          sizeBytes: draft.pdf.sizeBytes,
        })),
      );
      const started = performance.now();
      const elapsed = () => performance.now() - started;
      const gap = new ProgressGap(watch, sizes, elapsed);
      const preparedAt = new Map<string, number>();
      /** The line's counter a second ago and now, to tell whether bytes were moving. */
      const recentReceived: number[] = [];
      const slowBanner = { shown: 0, whileBytesMoved: 0 };
      const unsubscribe = desk.engine.subscribe((event) => {
        gap.observe(event);
        if (event.type === 'item-progress' && event.phase === 'prepared' && !preparedAt.has(event.documentId))
          preparedAt.set(event.documentId, elapsed());
        if (event.type === 'service-slow' && event.slow) {
          slowBanner.shown += 1;
          if (sim.uplink.receivedBytes() > (recentReceived[0] ?? 0)) slowBanner.whileBytesMoved += 1;
        }
      });

      let largestKernelQueue: SendRunResult['largestKernelQueue'];
      let ticks = 0;
      const sampler = setInterval(() => {
        ticks += 1;
        gap.sample();
        recentReceived.push(sim.uplink.receivedBytes());
        if (recentReceived.length > 1000 / SAMPLE_MS) recentReceived.shift();
        options.onTick?.({ sim, elapsedMs: elapsed() });
        if (ticks % KERNEL_SAMPLE_EVERY !== 0) return;
        const queues = kernelQueues(port);
        if (!queues) return;
        const largest = largestKernelQueue
          ? largestKernelQueue.queues.send + largestKernelQueue.queues.receive
          : -1;
        if (queues.send + queues.receive > largest) {
          const uploading = watch.attempts().filter((attempt) => attempt.endedAtMs === undefined).length;
          largestKernelQueue = { queues, uploading };
        }
      }, SAMPLE_MS);
      let capped = false;
      const cap = setTimeout(() => {
        capped = true;
        progress(
          `${options.label}: not finished after ${formatMs(capMs)} (${CAP_FACTOR} × what the line needs): paused`,
        );
        desk.engine.pause(batch.id);
      }, capMs);

      progress(
        `${options.label}: sending ${formatMiB(totalBytes)} through a shared ${mbit} Mbit/s line (the line alone needs ${formatMs(idealMs)}; paused at ${formatMs(capMs)} if unfinished)`,
      );
      let summary: SendSummary;
      try {
        summary = await desk.engine.send(batch.id);
      } finally {
        clearInterval(sampler);
        clearTimeout(cap);
        unsubscribe();
        watch.stop();
      }
      const wallMs = elapsed();
      gap.sample();
      const attempts = watch.attempts();
      const serviceUploadCalls = sim.state.calls().filter((call) => call.operation === 'upload').length;
      // The service cannot have logged more attempts than left the app: else the watch missed some
      // (the app no longer sends through undici, or names its uploads otherwise), and every figure
      // drawn from it would be wrong.
      if (serviceUploadCalls > attempts.length || (summary.prepared > 0 && attempts.length === 0))
        throw new Error(
          `the upload watch saw ${attempts.length} upload attempts, the service logged ${serviceUploadCalls}: see bench/uplink/upload-watch.ts`,
        );
      // The service answers an upload once it has all of it: an answered attempt credited with
      // other bytes means the watch took another upload's bytes for its own.
      const misread = attempts.find(
        (attempt) => attempt.answered && attempt.receivedBytes !== sizes.get(attempt.documentId),
      );
      if (misread)
        throw new Error(
          `the upload watch credits an answered upload of ${sizes.get(misread.documentId)} bytes with ${misread.receivedBytes}: see bench/uplink/upload-watch.ts`,
        );
      // Every document of a run has the same size.
      const preparedBytes = summary.prepared * size.documentBytes;
      return {
        summary,
        wallMs,
        idealMs,
        capMs,
        capped,
        totalBytes,
        preparedBytes,
        lineCarriedBytes: sim.uplink.receivedBytes(),
        serviceUploadCalls,
        attemptsPerDocument: [...sizes.keys()].map((id) => watch.attemptsOf(id)),
        attempts,
        referenceOf,
        gap,
        preparedAtMs: [...preparedAt.values()].sort((a, b) => a - b),
        largestKernelQueue,
        slowBanner,
      };
    } finally {
      await desk.close();
    }
  } finally {
    await sim.close();
    folder.remove();
  }
}
