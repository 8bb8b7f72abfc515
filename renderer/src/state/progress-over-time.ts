/**
 * How a batch's sending and signing moved over time, for the glance's chart and its table: the
 * documents sent and signed in each hour or day, and how many in all by then. Read from what
 * main reports of each document (its class, when it was prepared, when it was finalized).
 */
import { SENT_CLASSES } from '../../../shared/domain/document-counts';
import type { DocumentView } from '../../../shared/ipc/views';

/** The span each point covers: hours for a batch whose events fit in two days, days beyond. */
export type TimeStep = 'hour' | 'day';

export interface ProgressPoint {
  /** When the hour or day starts (epoch ms, the computer's own time zone). */
  readonly at: number;
  /** When it ends: the next one's start. */
  readonly until: number;
  /** Documents sent all the way in it, and signed in it. */
  readonly sent: number;
  readonly signed: number;
  /** Documents sent, and signed, by its end. */
  readonly sentSoFar: number;
  readonly signedSoFar: number;
}

export interface ProgressOverTime {
  readonly step: TimeStep;
  /** Only the hours or days in which something happened, oldest first; empty when nothing was sent. */
  readonly points: readonly ProgressPoint[];
}

const HOUR_MS = 3_600_000;
/** Events spread over less than this are shown hour by hour. */
const HOURS_UP_TO_MS = 48 * HOUR_MS;

/**
 * When `document` was sent all the way, if it was: when its request was prepared (the service's
 * time once read), else its last change, so every document the progress line counts as sent is
 * on the chart too.
 */
function sentAt(document: DocumentView): number | undefined {
  if (!SENT_CLASSES.has(document.class)) return undefined;
  return timeOf(document.preparedAt) ?? timeOf(document.updatedAt);
}

/** When `document` was signed by everyone, if it was: finalized at its service, else when the app saw it. */
function signedAt(document: DocumentView): number | undefined {
  if (document.class !== 'completed') return undefined;
  return (
    timeOf(document.tracking?.finalizedAt) ?? timeOf(document.tracking?.readAt) ?? timeOf(document.updatedAt)
  );
}

function timeOf(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const time = Date.parse(iso);
  return Number.isNaN(time) ? undefined : time;
}

/** The start of the hour or day holding `time`, and the start of the next one (local time). */
function bucketOf(time: number, step: TimeStep): { at: number; until: number } {
  const start = new Date(time);
  if (step === 'hour') {
    start.setMinutes(0, 0, 0);
    return { at: start.getTime(), until: start.getTime() + HOUR_MS };
  }
  start.setHours(0, 0, 0, 0);
  const next = new Date(start);
  next.setDate(next.getDate() + 1);
  return { at: start.getTime(), until: next.getTime() };
}

/** How `documents` were sent and signed over time (see `ProgressOverTime`). */
export function progressOverTime(documents: readonly DocumentView[]): ProgressOverTime {
  const sent: number[] = [];
  const signed: number[] = [];
  for (const document of documents) {
    const sentTime = sentAt(document);
    if (sentTime !== undefined) sent.push(sentTime);
    const signedTime = signedAt(document);
    if (signedTime !== undefined) signed.push(signedTime);
  }
  if (sent.length === 0) return { step: 'hour', points: [] };
  let first = Infinity;
  let last = -Infinity;
  for (const time of [...sent, ...signed]) {
    if (time < first) first = time;
    if (time > last) last = time;
  }
  const step: TimeStep = last - first < HOURS_UP_TO_MS ? 'hour' : 'day';
  const buckets = new Map<number, { at: number; until: number; sent: number; signed: number }>();
  const add = (time: number, field: 'sent' | 'signed') => {
    const { at, until } = bucketOf(time, step);
    const bucket = buckets.get(at) ?? { at, until, sent: 0, signed: 0 };
    bucket[field] += 1;
    buckets.set(at, bucket);
  };
  for (const time of sent) add(time, 'sent');
  for (const time of signed) add(time, 'signed');
  let sentSoFar = 0;
  let signedSoFar = 0;
  const points = [...buckets.values()]
    .sort((a, b) => a.at - b.at)
    .map((bucket) => {
      sentSoFar += bucket.sent;
      signedSoFar += bucket.signed;
      return { ...bucket, sentSoFar, signedSoFar };
    });
  return { step, points };
}
