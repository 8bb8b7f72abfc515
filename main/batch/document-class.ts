import type { DocumentClass } from '../../shared/domain/document-class';
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

/** True for a document whose request is tracked until it is final: waiting for signatures at the service. */
export function needsTracking(document: DocumentState): boolean {
  return classOf(document) === 'waiting' && document.send.requestId !== undefined;
}
