import type {
  BatchDetail,
  BatchSummary,
  DocumentView,
  EngineStateView,
  ErrorView,
} from '../../shared/ipc/views';
import type { ItemError } from '../../shared/domain/batch';
import { englishWords, type Translator } from '../../shared/i18n/translator';
import { isLocked, phaseOf, type BatchState, type DocumentState } from '../domain/batch-state';
import { outlineOf, type BatchOutline } from '../domain/batch-outline';
import { ceremonyRefusal, classOf } from '../domain/document-class';
import { peopleOf } from '../domain/people-of';
import { checkExplanation, errorMessageIn } from '../domain/send-messages';
import type { Holder } from '../domain/contract-identity';
import { batchProblems, sendProblems } from '../domain/send-readiness';

/** Which document of another batch holds a draft's reference at its service, if any (the review's rule). */
export type HeldBack = (document: DocumentState) => Holder | undefined;

export { countsOf } from '../domain/batch-outline';

/** The row of the batch list, from the batch's outline (a batch at rest is not read for it). */
export function summaryOf(
  batch: BatchOutline,
  engine: EngineStateView,
  connectionProblem?: string,
): BatchSummary {
  return {
    id: batch.id,
    name: batch.name,
    createdAt: batch.createdAt,
    updatedAt: batch.updatedAt,
    documentCount: batch.documentCount,
    counts: batch.counts,
    ...(batch.connection ? { connection: batch.connection } : {}),
    engine,
    ...(connectionProblem ? { connectionProblem } : {}),
  };
}

/**
 * A document's failure in the language of the view: it was stored in the words of the day it
 * happened; the app's own wordings are made anew, the code and the service's words kept.
 */
function errorView(error: ItemError, t: Translator['t'] | undefined): ErrorView {
  return { code: error.code, message: t === undefined ? error.message : errorMessageIn(error, t) };
}

/** Why a draft stays behind: another batch's document holds its reference at its service. */
export function heldBackWords(
  holder: Holder,
  reference: string,
  t: Translator['t'] = englishWords(),
): string {
  const batch = holder.deleted ? t('check.batchDeleted', { batch: holder.batchName }) : holder.batchName;
  return t('review.stayHeldElsewhere', { file: holder.fileName, batch, reference });
}

/** One document as the editor and the status table show it, in `t`'s language (English unless given). */
export function documentViewOf(
  batch: BatchState,
  document: DocumentState,
  t?: Translator['t'],
  heldBack?: HeldBack,
): DocumentView {
  const { draft, send } = document;
  const phase = phaseOf(document);
  const holder = phase === 'draft' && !send.reuseAccepted ? heldBack?.(document) : undefined;
  // The service's own time once it was read; until then, when the app saw its preparation succeed.
  const preparedAt = document.tracking?.preparedAt ?? send.prepared?.at;
  return {
    id: draft.id,
    externalReference: draft.externalReference,
    originalName: draft.pdf.originalName,
    storedFilename: draft.pdf.storedFilename,
    sizeBytes: draft.pdf.sizeBytes,
    sha256: draft.pdf.sha256,
    recipients: draft.recipients,
    extraParticipants: draft.extraParticipants,
    people: peopleOf(batch.defaults, document),
    options: draft.options,
    phase,
    class: classOf(document),
    ...(document.tracking?.readAt ? { lastCheckedAt: document.tracking.readAt } : {}),
    ...(preparedAt ? { preparedAt } : {}),
    problems:
      phase === 'draft'
        ? [
            ...sendProblems(batch.defaults, draft, t),
            ...batchProblems(batch, document, t),
            ...(holder ? [heldBackWords(holder, draft.externalReference, t)] : []),
          ]
        : [],
    ...(holder
      ? {
          heldBy: {
            batchId: holder.batchId,
            batchName: holder.batchName,
            fileName: holder.fileName,
            ...(holder.requestId ? { requestId: holder.requestId } : {}),
            ...(holder.deleted ? { deleted: true } : {}),
          },
        }
      : {}),
    locked: isLocked(document),
    ...(send.requestId ? { requestId: send.requestId } : {}),
    ...(send.error ? { error: errorView(send.error, t) } : {}),
    ...(send.check
      ? {
          check: {
            reason: send.check.reason,
            explanation: checkExplanation(document, t),
            ...(send.check.firstAttemptAt ? { firstAttemptAt: send.check.firstAttemptAt } : {}),
            ...(send.check.newRequestId ? { newRequestId: send.check.newRequestId } : {}),
            ...(send.check.holder
              ? {
                  holder: {
                    batchId: send.check.holder.batchId,
                    batchName: send.check.holder.batchName,
                    fileName: send.check.holder.fileName,
                    ...(send.check.holder.requestId ? { requestId: send.check.holder.requestId } : {}),
                    ...(send.check.holder.deleted ? { deleted: true } : {}),
                  },
                }
              : {}),
          },
        }
      : {}),
    ...(document.tracking ? { tracking: document.tracking } : {}),
    gone: document.gone,
    canOpenCeremony: ceremonyRefusal(document) === undefined,
    updatedAt: document.updatedAt,
  };
}

/** The whole batch for the editor and the status table. */
export function detailOf(
  batch: BatchState,
  engine: EngineStateView,
  connectionProblem?: string,
  t?: Translator['t'],
  heldBack?: HeldBack,
): BatchDetail {
  return {
    ...summaryOf(outlineOf(batch), engine, connectionProblem),
    defaults: batch.defaults,
    documents: batch.documents.map((document) => documentViewOf(batch, document, t, heldBack)),
  };
}
