import type { DocumentClass } from '../../shared/domain/document-class';
import type { MessageId } from '../../shared/i18n/catalog';
import { phaseOf, type DocumentState } from './batch-state';

/**
 * The one rule for which group a document is in (see `shared/domain/document-class.ts`):
 * gone (its service said so) beats everything; then completed (its tracking is final),
 * waiting for signatures (prepared), needs your check, failed, not sent (never queued), and
 * sending (on its way).
 */
export function classOf(document: DocumentState): DocumentClass {
  if (document.gone) return 'gone';
  if (document.tracking?.final) return 'completed';
  const phase = phaseOf(document);
  if (phase === 'prepared') return 'waiting';
  if (phase === 'needs_check') return 'needs_check';
  if (phase === 'failed') return 'failed';
  if (phase === 'draft') return 'not_sent';
  return 'sending';
}

/**
 * Why `document`'s signing ceremony cannot open now (a catalog message, for the caller to say
 * in the user's language), or undefined when it can: its request waits for signatures and is
 * not signed yet. The page's "Open ceremony" and the handler that opens it both follow this.
 */
export function ceremonyRefusal(document: DocumentState): MessageId | undefined {
  const documentClass = classOf(document);
  if (documentClass === 'completed' || document.tracking?.status === 'completed')
    return 'documents.ceremony.alreadySigned';
  if (documentClass === 'gone') return 'documents.ceremony.gone';
  if (documentClass !== 'waiting') return 'documents.ceremony.notPrepared';
  return undefined;
}

/** True for a document whose request is tracked until it is final: waiting for signatures at the service. */
export function needsTracking(document: DocumentState): boolean {
  return classOf(document) === 'waiting' && document.send.requestId !== undefined;
}

/**
 * True once the service holds a request for `document` (it was created there and is not gone),
 * whatever its group: the batch's "sent" count counts these, so a row waiting for signatures is
 * never missing from it.
 */
export function hasRequest(document: DocumentState): boolean {
  return document.send.requestId !== undefined && !document.gone;
}
