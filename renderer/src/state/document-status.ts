/**
 * How the desk groups, measures and finds documents, as pure functions of what main reports
 * (and of live progress events, which main never stores).
 */
import type { DocumentClass } from '../../../shared/domain/document-class';
import type { DocumentView } from '../../../shared/ipc/views';
import type { Progress } from './transitions';

export type StatusFilter = 'all' | DocumentClass;

export const STATUS_FILTERS: readonly { readonly value: StatusFilter; readonly label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'not_sent', label: 'Not sent' },
  { value: 'sending', label: 'Sending' },
  { value: 'waiting', label: 'Waiting for signatures' },
  { value: 'completed', label: 'Completed' },
  { value: 'needs_check', label: 'Needs your check' },
  { value: 'failed', label: 'Failed' },
  { value: 'gone', label: 'No longer at the service' },
];

/** Share of a document's sending done once each step is reached: the upload is the first 60 %. */
const STEP_SHARE: Readonly<Record<string, number>> = {
  queued: 0,
  uploading: 0,
  creating: 0.6,
  adding_participants: 0.75,
  preparing: 0.9,
  prepared: 1,
};

/**
 * How far one document's sending is, from 0 to 1: upload bytes for the first 60 %, then the
 * steps. Undefined for a document not being sent (not sent yet, or failed).
 */
export function documentProgress(document: DocumentView, live: Progress | undefined): number | undefined {
  const phase = live?.phase ?? document.phase;
  if (phase === 'draft' || phase === 'failed' || phase === 'needs_check') return undefined;
  if (phase === 'uploading' && live?.sentBytes !== undefined && live.totalBytes)
    return (0.6 * Math.min(live.sentBytes, live.totalBytes)) / live.totalBytes;
  return STEP_SHARE[phase] ?? 0;
}

export interface BatchProgress {
  /** Documents the service holds, prepared or further. */
  readonly sent: number;
  /** Documents that are sent, being sent, or waiting to be sent (failed and not-sent ones aside). */
  readonly inScope: number;
  /** Every document. */
  readonly total: number;
  /** 0…1 over the documents in scope, counting partial progress of those in flight. */
  readonly fraction: number;
}

/** The batch's progress bar, from each document's own progress. */
export function batchProgress(
  documents: readonly DocumentView[],
  progress: Readonly<Record<string, Progress>>,
  batchId: string,
): BatchProgress {
  let sent = 0;
  let inScope = 0;
  let done = 0;
  for (const document of documents) {
    if (document.class === 'gone') continue; // not at its service: neither sent nor in flight
    if (document.class === 'waiting' || document.class === 'completed') {
      sent += 1;
      inScope += 1;
      done += 1;
      continue;
    }
    const value = documentProgress(document, progress[`${batchId}/${document.id}`]);
    if (value === undefined) continue;
    inScope += 1;
    done += value;
  }
  return { sent, inScope, total: documents.length, fraction: inScope === 0 ? 0 : done / inScope };
}

/** Documents in `filter` whose reference, file or recipients contain `search` (case and accents ignored). */
export function filterDocuments(
  documents: readonly DocumentView[],
  filter: StatusFilter,
  search: string,
): DocumentView[] {
  const needle = fold(search.trim());
  return documents.filter((document) => {
    if (filter !== 'all' && document.class !== filter) return false;
    if (!needle) return true;
    const haystack = [
      document.externalReference,
      document.storedFilename,
      ...document.people.flatMap((person) => [person.name, person.email]),
    ];
    return haystack.some((text) => fold(text).includes(needle));
  });
}

/** Lower case without accents, so "dupre" finds "Dupré". */
function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .toLowerCase();
}

/** How many documents are in each group, for the filter's labels. */
export function countByBucket(documents: readonly DocumentView[]): Readonly<Record<StatusFilter, number>> {
  const counts: Record<StatusFilter, number> = {
    all: documents.length,
    not_sent: 0,
    sending: 0,
    waiting: 0,
    completed: 0,
    needs_check: 0,
    failed: 0,
    gone: 0,
  };
  for (const document of documents) counts[document.class] += 1;
  return counts;
}
