import { formatMiB, formatMs, table, verdictLine, type BenchReport, type Verdict } from '../support/report';
import { socketBufferMaxima } from './kernel-queues';
import type { GapMoment } from './progress-gap';
import { CAP_FACTOR, LATENCY_MS, type SendRunResult } from './send-run';

/**
 * The figures every uplink scenario prints from its run, and the verdicts the uplink targets
 * share: the link's share, upload attempts per document, progress against the bytes the service
 * received.
 */

/** "≥ 90 % of the link". */
export const LINK_SHARE_TARGET = 0.9;
/** "Progress never ahead of the bytes the service received by more than 256 KiB per upload". */
export const PROGRESS_LEAD_TARGET_BYTES = 256 * 1024;
/** Attempts are listed one by one up to this many documents. */
const ATTEMPTS_LISTED_UP_TO = 4;

function bytesPerMs(mbit: number): number {
  return (mbit * 1e6) / 8 / 1000;
}

function percent(value: number, digits = 1): string {
  return `${(value * 100).toFixed(digits)} %`;
}

function kib(bytes: number): string {
  return `${Math.round(bytes / 1024).toLocaleString('en-US')} KiB`;
}

/** PDF bytes of the prepared documents ÷ (the line's rate × the wall time of the send). */
export function linkShare(result: SendRunResult, mbit: number): number {
  return result.preparedBytes / (bytesPerMs(mbit) * result.wallMs);
}

/** The most upload attempts one document took. */
export function mostAttempts(result: SendRunResult): number {
  return Math.max(0, ...result.attemptsPerDocument);
}

/** Documents whose upload was attempted more than once. */
export function documentsAttemptedAgain(result: SendRunResult): number {
  return result.attemptsPerDocument.filter((attempts) => attempts > 1).length;
}

/** ≥ 90 % of the link: PDF bytes prepared ÷ what the line could carry in the wall time. */
export function linkShareVerdict(result: SendRunResult, mbit: number): Verdict {
  const share = linkShare(result, mbit);
  return {
    name: `PDF bytes prepared ÷ (${mbit} Mbit/s × wall time), share of the link`,
    figure: `${percent(share)}${result.capped ? ` (paused unfinished at ${formatMs(result.wallMs)})` : ''}`,
    target: `≥ ${percent(LINK_SHARE_TARGET, 0)}`,
    meets: share >= LINK_SHARE_TARGET,
  };
}

/** Every document prepared by the end of the run. */
export function allPreparedVerdict(result: SendRunResult): Verdict {
  const documents = result.attemptsPerDocument.length;
  return {
    name: 'documents prepared',
    figure: `${result.summary.prepared} of ${documents}${result.capped ? ` after ${formatMs(result.wallMs)} (paused there)` : ''}`,
    target: `all ${documents}`,
    meets: result.summary.prepared === documents,
  };
}

/** No document's upload attempted twice (as it left the app). */
export function noSecondAttemptVerdict(result: SendRunResult): Verdict {
  const again = documentsAttemptedAgain(result);
  return {
    name: 'documents whose upload was attempted twice or more',
    figure: `${again} of ${result.attemptsPerDocument.length} (most attempts of one: ${mostAttempts(result)})`,
    target: '0',
    meets: again === 0,
  };
}

/** A document's upload took at most `allowed` attempts (1: one attempt; 2: at most one retry). */
export function attemptsVerdict(result: SendRunResult, name: string, allowed: number): Verdict {
  const most = mostAttempts(result);
  return {
    name,
    figure: `${most} attempt${most === 1 ? '' : 's'}${result.capped ? `, unfinished at ${formatMs(result.wallMs)}` : ''}`,
    target:
      allowed === 1
        ? '1 attempt'
        : `≤ ${allowed} attempts (at most ${allowed - 1} retr${allowed === 2 ? 'y' : 'ies'})`,
    // An upload that had not finished by the cap proves nothing about its attempts.
    meets: !result.capped && most >= 1 && most <= allowed,
  };
}

/** Progress never ahead of what the service received of that upload by more than 256 KiB. */
export function progressVerdict(result: SendRunResult): Verdict {
  const ahead = result.gap.ahead?.gapBytes ?? 0;
  return {
    name: 'upload progress ahead of the bytes the service received of that upload, worst upload, whole run',
    figure: result.gap.events === 0 ? 'no progress told' : kib(ahead),
    target: `≤ ${kib(PROGRESS_LEAD_TARGET_BYTES)}`,
    meets: result.gap.events > 0 && ahead <= PROGRESS_LEAD_TARGET_BYTES,
  };
}

/** How many documents took how many attempts: "1 attempt: 97, 2 attempts: 3". */
function attemptsSpread(attemptsPerDocument: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const attempts of attemptsPerDocument) counts.set(attempts, (counts.get(attempts) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([attempts, documents]) => `${attempts} attempt${attempts === 1 ? '' : 's'}: ${documents}`)
    .join(', ');
}

function describeMoment(result: SendRunResult, moment: GapMoment | undefined): string[] {
  if (!moment) return ['—', '', ''];
  return [
    kib(moment.gapBytes),
    `${result.referenceOf.get(moment.documentId) ?? moment.documentId}, attempt ${moment.attempt}, at ${formatMs(moment.atMs)}`,
    `shown ${formatMiB(moment.shownBytes)}, received ${formatMiB(moment.receivedBytes)}`,
  ];
}

/** The lines every scenario prints about its run, after its verdicts. */
export function runLines(result: SendRunResult, mbit: number): string[] {
  const documents = result.attemptsPerDocument.length;
  const first = result.preparedAtMs[0];
  const last = result.preparedAtMs[result.preparedAtMs.length - 1];
  const busy = result.lineCarriedBytes / (bytesPerMs(mbit) * result.wallMs);
  const lines = [
    `  Shared line of ${mbit} Mbit/s (simulator uploadMbit), ${LATENCY_MS} ms latency on every answer, in-process simulator; the app's own settings: the benchmark sets no concurrency, deadline or retry.`,
    result.capped
      ? `  NOT FINISHED: paused at ${formatMs(result.wallMs)} (${CAP_FACTOR} × the ${formatMs(result.idealMs)} the line needs); ${result.summary.prepared} of ${documents} prepared.`
      : `  Wall time of the send ${formatMs(result.wallMs)}; the line alone needs ${formatMs(result.idealMs)}; ${result.summary.prepared} of ${documents} prepared${
          first === undefined
            ? ''
            : `, the first at ${formatMs(first)}, the last at ${formatMs(last ?? first)}`
        }.`,
    `  Upload attempts as they left the app (undici's diagnostics channel, by X-Filename): ${attemptsSpread(result.attemptsPerDocument)}; the service's log holds ${result.serviceUploadCalls} upload calls at the end (an attempt the app cut is logged once the simulator has read what the system still held of it, at the line's pace, so the log can lag the app).`,
    `  The line carried ${formatMiB(result.lineCarriedBytes)} of upload bodies for ${formatMiB(result.totalBytes)} of PDFs (${percent(result.lineCarriedBytes / result.totalBytes, 0)}); it was busy ${percent(Math.min(1, busy), 0)} of the wall time.`,
    `  "The service is slow to answer" told ${result.slowBanner.shown} time${result.slowBanner.shown === 1 ? '' : 's'}, ${result.slowBanner.whileBytesMoved} of them while upload bytes had crossed the line in the second before.`,
  ];
  if (documents <= ATTEMPTS_LISTED_UP_TO) {
    for (const attempt of result.attempts) {
      const reference = result.referenceOf.get(attempt.documentId) ?? attempt.documentId;
      const ended =
        attempt.endedAtMs === undefined
          ? 'still on its way at the end'
          : `${attempt.answered ? 'answered' : 'failed'} at ${formatMs(attempt.endedAtMs)}`;
      lines.push(
        `    ${reference}: attempt from ${formatMs(attempt.startedAtMs)}, ${ended}, the service received ${formatMiB(attempt.receivedBytes)}`,
      );
    }
  }
  return lines;
}

/** The table of how true upload progress was to the bytes received. */
export function progressLines(result: SendRunResult): string[] {
  const { gap } = result;
  const kernel = result.largestKernelQueue;
  const rows = [
    ['progress shown vs bytes the service received of that upload', 'gap', 'where', 'figures'],
    ['largest ahead, whole run', ...describeMoment(result, gap.ahead)],
    [
      `largest ahead once the first upload was answered (${gap.firstAnsweredAtMs === undefined ? 'never' : formatMs(gap.firstAnsweredAtMs)})`,
      ...describeMoment(result, gap.aheadAfterFirstAnswer),
    ],
    ['largest behind, while an attempt was on its way', ...describeMoment(result, gap.behind)],
    [
      'largest kernel queues (app Send-Q + simulator Recv-Q)',
      kernel ? formatMiB(kernel.queues.send + kernel.queues.receive) : 'ss unavailable',
      kernel ? `${kernel.uploading} upload${kernel.uploading === 1 ? '' : 's'} on the wire` : '',
      kernel ? `${formatMiB(kernel.queues.send)} + ${formatMiB(kernel.queues.receive)}` : '',
    ],
  ];
  return [
    `  Upload progress (item-progress events, what the bars show) against what the service had received of that very upload (its connection's counter, found by the client's port), read at each of ${gap.events.toLocaleString('en-US')} progress events; lag read every 100 ms. Kernel queues with ss every second.`,
    ...table(rows),
    `  Grain: the simulator counts a piece once it crossed (about 50 ms of the line, 4 KiB at least, one socket read of at most 64 KiB). The system's socket buffers take up to ${socketBufferMaxima()} (tcp_wmem / tcp_rmem maxima) of an upload before the line has carried it.`,
  ];
}

/**
 * A scenario's printed section: what it ran (`about`: the size line and anything particular to
 * it), its verdicts against the targets, then the run's figures and the progress table.
 */
export function scenarioReport(
  title: string,
  about: readonly string[],
  result: SendRunResult,
  mbit: number,
  verdicts: readonly Verdict[],
): BenchReport {
  return {
    title,
    lines: [
      ...about,
      '',
      ...verdicts.map(verdictLine),
      '',
      ...runLines(result, mbit),
      '',
      ...progressLines(result),
    ],
    verdicts,
  };
}
