/**
 * The uplink as the limit: 100 real 5 MiB PDFs, two participants each, sent with the app's
 * default concurrency to the simulator behind a 20 Mbit/s uplink (`uploadMbit`: one link shared
 * by every connection) with 25 ms of latency on every call. Measures the effective throughput
 * (bytes of PDFs ÷ wall time of `engine.send`, against the link) and how true the upload
 * progress the engine reports (the `item-progress` events the renderer's bars show) is to the
 * bytes the service received, both sampled over time. The kernel's socket queues are sampled
 * too (`ss`), to tell what the system holds on its way from what the app counts early.
 *
 * Run alone: `npx tsx bench/uplink.ts` (about four minutes: the link needs 210 s for 500 MiB;
 * BENCH_UPLINK_DOCUMENTS=10 for a quick look, not the benchmark).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { SendPhase } from '../shared/domain/batch';
import { openTestDesk } from '../test/support/batch-harness';
import { makeTempFolder } from '../test/support/pdf-files';
import { startSimulator } from '../simulator/simulator';
import { PROGRESS_STEP_BYTES } from '../main/batch/send-engine';
import { UPLOAD_SLICE_BYTES } from '../main/client/service-client';
import { prepareBatch } from './support/batch-setup';
import { writeBenchDocuments } from './support/bench-documents';
import {
  formatMiB,
  formatMs,
  isMainModule,
  MIB,
  progress,
  runAlone,
  table,
  verdictLine,
  type BenchReport,
  type Verdict,
} from './support/report';

const DOCUMENTS = Number(process.env.BENCH_UPLINK_DOCUMENTS ?? 100);
const DOCUMENT_BYTES = 5 * MIB;
const UPLINK_MBIT = 20;
const LATENCY_MS = 25;
/** The app's default: the send engine's (the desk does not set one). */
const CONCURRENCY = 4;
const TARGET_SHARE = 0.9;
const SAMPLE_MS = 100;
/** Kernel queues are read with `ss` this often (a process each time). */
const SOCKET_SAMPLE_EVERY = 10;

/** Phases after the upload: the document's bytes are all at the service. */
const UPLOADED: ReadonlySet<SendPhase> = new Set([
  'creating',
  'adding_participants',
  'preparing',
  'prepared',
]);

interface Sample {
  readonly atMs: number;
  /** Upload bytes the engine reported to its listeners (the renderer's progress). */
  readonly reported: number;
  /** Upload bytes the simulator received (that crossed the link). */
  readonly received: number;
  readonly uploading: number;
  /** Bytes in the kernel between app and simulator, when read: the app's send queues and the simulator's receive queues. */
  readonly kernel?: KernelQueues;
}

interface KernelQueues {
  /** Send-Q of the app's sockets: handed to the system, not yet in the simulator's socket. */
  readonly send: number;
  /** Recv-Q of the simulator's sockets: arrived, not yet read by the simulator (the link waits). */
  readonly receive: number;
}

/** Bytes queued in the kernel on the simulator's connections, read with `ss`. */
function kernelQueues(port: number): KernelQueues | undefined {
  let output: string;
  try {
    output = execFileSync('ss', ['-tnH'], { encoding: 'utf8' });
  } catch {
    return undefined; // no `ss` on this machine
  }
  let send = 0;
  let receive = 0;
  for (const line of output.split('\n')) {
    const [, recvQ, sendQ, local, peer] = line.trim().split(/\s+/);
    if (!local || !peer) continue;
    if (local.endsWith(`:${port}`)) receive += Number(recvQ);
    else if (peer.endsWith(`:${port}`)) send += Number(sendQ);
  }
  return { send, receive };
}

/** The max of a TCP buffer sysctl (`tcp_wmem` or `tcp_rmem`), for the report. */
function sysctl(name: 'tcp_wmem' | 'tcp_rmem'): string {
  try {
    const max = Number(readFileSync(`/proc/sys/net/ipv4/${name}`, 'utf8').trim().split(/\s+/)[2]);
    return formatMiB(max);
  } catch {
    return 'unknown';
  }
}

/** Runs the uplink benchmark and returns its report. */
export async function runUplinkBench(): Promise<BenchReport> {
  const folder = makeTempFolder('bench-uplink-');
  const sim = await startSimulator({ seed: 11, uploadMbit: UPLINK_MBIT });
  const port = Number(new URL(sim.baseUrl).port);
  try {
    sim.faults.set({ latencyMs: LATENCY_MS });
    progress(`writing ${DOCUMENTS} PDFs of ${DOCUMENT_BYTES / MIB} MiB`);
    const sources = await writeBenchDocuments(folder, {
      count: DOCUMENTS,
      sizeBytes: DOCUMENT_BYTES,
      title: 'Uplink contract',
      referencePrefix: 'UP',
    });
    const desk = await openTestDesk(sim, folder.file('data'), { concurrency: CONCURRENCY });
    try {
      const batch = await prepareBatch(desk, 'Uplink', sources);
      const sizes = new Map(
        batch.documents.map((document) => [document.draft.id, document.draft.pdf.sizeBytes]),
      );
      const totalBytes = [...sizes.values()].reduce((sum, size) => sum + size, 0);
      /** Per document: the bytes its progress shows (the last event's), as a progress bar would. */
      const shown = new Map<string, { phase: SendPhase; sent: number }>();
      desk.engine.subscribe((event) => {
        if (event.type !== 'item-progress') return;
        const before = shown.get(event.documentId);
        const sent =
          event.phase === 'uploading'
            ? (event.sentBytes ?? before?.sent ?? 0)
            : UPLOADED.has(event.phase)
              ? (sizes.get(event.documentId) ?? 0)
              : 0;
        shown.set(event.documentId, { phase: event.phase, sent });
      });
      /** When the first upload was answered: from then on the engine knows the line's pace. */
      let paceKnownAt: number | undefined;
      desk.engine.subscribe((event) => {
        if (event.type === 'item-progress' && UPLOADED.has(event.phase))
          paceKnownAt ??= performance.now() - started;
      });
      const reported = () => [...shown.values()].reduce((sum, entry) => sum + entry.sent, 0);
      const uploading = () => [...shown.values()].filter((entry) => entry.phase === 'uploading').length;

      progress(
        `sending ${formatMiB(totalBytes)} through ${UPLINK_MBIT} Mbit/s at concurrency ${CONCURRENCY} (about ${Math.round((totalBytes * 8) / (UPLINK_MBIT * 1e6))} s)`,
      );
      const samples: Sample[] = [];
      let started = performance.now();
      let ticks = 0;
      started = performance.now();
      const sampler = setInterval(() => {
        ticks += 1;
        const kernel = ticks % SOCKET_SAMPLE_EVERY === 0 ? kernelQueues(port) : undefined;
        samples.push({
          atMs: performance.now() - started,
          reported: reported(),
          received: sim.uplink.receivedBytes(),
          uploading: uploading(),
          ...(kernel === undefined ? {} : { kernel }),
        });
      }, SAMPLE_MS);
      const summary = await desk.engine.send(batch.id);
      const wallMs = performance.now() - started;
      clearInterval(sampler);
      if (summary.state !== 'finished' || summary.prepared !== DOCUMENTS)
        throw new Error(`send did not finish cleanly: ${JSON.stringify(summary)}`);
      const uploads = sim.state.calls().filter((call) => call.operation === 'upload');

      const linkBytesPerMs = (UPLINK_MBIT * 1e6) / 8 / 1000;
      const share = totalBytes / wallMs / linkBytesPerMs;
      const idealMs = totalBytes / linkBytesPerMs;
      const ahead = samples.map((sample) => sample.reported - sample.received);
      const maxAhead = Math.max(0, ...ahead);
      const maxBehind = Math.max(0, ...ahead.map((gap) => -gap));
      const worst = samples[ahead.indexOf(maxAhead)];
      const aheadPerUpload = samples.map((sample) =>
        sample.uploading > 0 ? (sample.reported - sample.received) / sample.uploading : 0,
      );
      const maxAheadPerUpload = Math.max(0, ...aheadPerUpload);
      const paced = samples.filter((sample) => paceKnownAt !== undefined && sample.atMs >= paceKnownAt);
      const pacedAheadPerUpload = Math.max(
        0,
        ...paced.map((sample) =>
          sample.uploading > 0 ? (sample.reported - sample.received) / sample.uploading : 0,
        ),
      );
      const pacedBehind = Math.max(0, ...paced.map((sample) => sample.received - sample.reported));
      const withKernel = samples.filter((sample) => sample.kernel !== undefined);
      const queued = (sample: Sample) => (sample.kernel ? sample.kernel.send + sample.kernel.receive : 0);
      const beyondKernel = withKernel.map((sample) => ({
        beyond: sample.reported - sample.received - queued(sample),
        uploading: Math.max(1, sample.uploading),
      }));
      const maxBeyond = Math.max(0, ...beyondKernel.map((entry) => entry.beyond));
      const maxBeyondPerUpload = Math.max(0, ...beyondKernel.map((entry) => entry.beyond / entry.uploading));
      const largestQueue = withKernel.reduce<Sample | undefined>(
        (largest, sample) => (!largest || queued(sample) > queued(largest) ? sample : largest),
        undefined,
      );
      /**
       * What the two programs' own stream buffers may hold per upload: the app's slice read
       * ahead and the one in its socket's write buffer; the simulator's socket read buffer and
       * the chunk crossing the link.
       */
      const allowancePerUpload = 4 * UPLOAD_SLICE_BYTES;
      const percentOfTotal = (bytes: number) => `${((bytes / totalBytes) * 100).toFixed(1)} %`;
      const percentOfDocument = (bytes: number) => `${((bytes / DOCUMENT_BYTES) * 100).toFixed(0)} %`;

      const verdicts: Verdict[] = [
        {
          name: `uplink ${UPLINK_MBIT} Mbit/s, ${DOCUMENTS} × ${DOCUMENT_BYTES / MIB} MiB: PDF bytes ÷ wall time, share of the link`,
          figure: `${(share * 100).toFixed(1)} %`,
          target: `≥ ${TARGET_SHARE * 100} %`,
          meets: share >= TARGET_SHARE,
        },
        {
          name: 'upload progress ahead of the bytes received once the first upload was answered, per upload in flight',
          figure: `${Math.round(pacedAheadPerUpload / 1024)} KiB`,
          target: `≤ ${PROGRESS_STEP_BYTES / 1024} KiB (one progress step)`,
          meets: paced.length > 0 && pacedAheadPerUpload <= PROGRESS_STEP_BYTES,
        },
        {
          name: 'upload progress ahead of the bytes received beyond the socket buffers, per upload in flight',
          figure: `${Math.round(maxBeyondPerUpload / 1024)} KiB`,
          target: `≤ ${allowancePerUpload / 1024} KiB (4 slices of ${UPLOAD_SLICE_BYTES / 1024} KiB in the two programs' stream buffers)`,
          meets: withKernel.length > 0 && maxBeyondPerUpload <= allowancePerUpload,
        },
      ];
      const rows = [
        ['progress vs received', 'bytes', 'of all bytes', 'per upload in flight'],
        [
          'largest ahead (reported − received)',
          formatMiB(maxAhead),
          percentOfTotal(maxAhead),
          `${formatMiB(maxAheadPerUpload)} (${percentOfDocument(maxAheadPerUpload)} of a document)`,
        ],
        ['largest behind (received − reported)', formatMiB(maxBehind), percentOfTotal(maxBehind), ''],
        [
          `once the first upload was answered (${paceKnownAt === undefined ? '—' : formatMs(paceKnownAt)}): largest ahead`,
          '',
          '',
          `${Math.round(pacedAheadPerUpload / 1024)} KiB (${percentOfDocument(pacedAheadPerUpload)} of a document)`,
        ],
        [
          'once the first upload was answered: largest behind',
          formatMiB(pacedBehind),
          percentOfTotal(pacedBehind),
          '',
        ],
        [
          'largest kernel queues (app Send-Q + simulator Recv-Q)',
          largestQueue?.kernel
            ? `${formatMiB(queued(largestQueue))} = ${formatMiB(largestQueue.kernel.send)} + ${formatMiB(largestQueue.kernel.receive)}`
            : 'ss unavailable',
          largestQueue ? percentOfTotal(queued(largestQueue)) : '',
          largestQueue ? formatMiB(queued(largestQueue) / Math.max(1, largestQueue.uploading)) : '',
        ],
        [
          'largest ahead beyond the kernel queues',
          formatMiB(maxBeyond),
          percentOfTotal(maxBeyond),
          `${Math.round(maxBeyondPerUpload / 1024)} KiB`,
        ],
      ];
      const lines = [
        `  ${DOCUMENTS} PDFs × ${DOCUMENT_BYTES / MIB} MiB (${formatMiB(totalBytes)}), 2 participants each, concurrency ${CONCURRENCY} (the app's default), simulator latency ${LATENCY_MS} ms on every call, in-process simulator with uploadMbit ${UPLINK_MBIT}.`,
        `  Throughput counts PDF bytes only: upload headers, the JSON calls and the answers are not paced by the simulated link and not counted (under 0.1 % of the bytes); TCP/IP framing is not modelled.`,
        `  Wall time of engine.send ${formatMs(wallMs)}; the link alone needs ${formatMs(idealMs)}; ${uploads.length} upload calls.`,
        '',
        ...verdicts.map(verdictLine),
        '',
        `  Upload progress the engine reported (item-progress events, what the renderer's bars show) against upload bytes the simulator received, sampled every ${SAMPLE_MS} ms (${samples.length} samples; kernel queues with ss every ${SAMPLE_MS * SOCKET_SAMPLE_EVERY} ms, ${withKernel.length} samples):`,
        ...table(rows),
        `  The connection takes an upload in 64 KiB slices; the kernel's socket buffers, which the app cannot see, take megabytes of it at once (on loopback Linux grows them to their maxima, net.ipv4.tcp_wmem / tcp_rmem: ${sysctl('tcp_wmem')} / ${sysctl('tcp_rmem')}; on a real ${UPLINK_MBIT} Mbit/s line they stay nearer its bandwidth-delay product). So the engine shows the lesser of the bytes handed and what the pace of the run's answered uploads carries (main/batch/upload-pace.ts), every ${PROGRESS_STEP_BYTES / 1024} KiB; before the first answer it knows no pace and shows the bytes handed: the first uploads run ahead by the socket buffers.`,
        worst
          ? `  Largest gap at ${formatMs(worst.atMs)}: reported ${formatMiB(worst.reported)}, received ${formatMiB(worst.received)}, ${worst.uploading} uploads in flight.`
          : '',
      ];
      return {
        title: `Uplink: ${DOCUMENTS} × ${DOCUMENT_BYTES / MIB} MiB through ${UPLINK_MBIT} Mbit/s`,
        lines,
        verdicts,
      };
    } finally {
      await desk.close();
    }
  } finally {
    await sim.close();
    folder.remove();
  }
}

if (isMainModule(import.meta.url)) runAlone(runUplinkBench);
