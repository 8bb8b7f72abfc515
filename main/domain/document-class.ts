import type { DocumentClass } from '../../shared/domain/document-class';
import type { MessageId } from '../../shared/i18n/catalog';
import {
  isFinalStage,
  isPreparedOrLater,
  stageOfStored,
  type RequestStage,
} from '../../shared/service/status';
import { phaseOf, type DocumentState } from './batch-state';

/** Where `document`'s request stands by its last status read (shared/service/status.ts), or undefined when never read. */
export function stageOfDocument(document: DocumentState): RequestStage | undefined {
  return document.tracking ? stageOfStored(document.tracking) : undefined;
}

/**
 * True when the service holds a prepared request for `document`: the app prepared it, the user
 * linked a request the service showed as prepared, or a status read shows it prepared or
 * further. Tracking follows the request, not the way it got there: a step that failed after
 * the link (an extra participant a prepared request refuses) leaves a ceremony to follow.
 */
export function hasPreparedRequest(document: DocumentState): boolean {
  const { send, tracking } = document;
  if (send.requestId === undefined) return false;
  return (
    send.prepared !== undefined ||
    send.linkedPreparedAt !== undefined ||
    (tracking !== undefined && isPreparedOrLater(tracking))
  );
}

/**
 * The one rule for which group a document is in (see `shared/domain/document-class.ts`):
 * gone (its service said so) beats everything; then what its last status read says when it is
 * final (completed, or ended without completion); then a prepared request, waiting for
 * signatures, or in a status this app does not know — even when a step after a link failed,
 * since its request lives on and its failure stays shown with it; then needs your check,
 * failed, not sent (never queued), and sending (on its way).
 */
export function classOf(document: DocumentState): DocumentClass {
  if (document.gone) return 'gone';
  const stage = stageOfDocument(document);
  if (stage === 'completed') return 'completed';
  if (stage === 'ended') return 'ended';
  if (hasPreparedRequest(document)) return stage === 'unrecognized' ? 'unknown_status' : 'waiting';
  const phase = phaseOf(document);
  if (phase === 'needs_check') return 'needs_check';
  if (phase === 'failed') return 'failed';
  if (phase === 'draft') return 'not_sent';
  return 'sending';
}

/**
 * Why `document`'s signing ceremony cannot open now (a catalog message, for the caller to say
 * in the user's language), or undefined when it can: its request is prepared and not signed
 * or ended yet. A status this app does not know does not refuse it: the service knows whether
 * its ceremony can open, and says so if not. The page's "Open ceremony" and the handler that
 * opens it both follow this.
 */
export function ceremonyRefusal(document: DocumentState): MessageId | undefined {
  const documentClass = classOf(document);
  if (documentClass === 'completed' || document.tracking?.status === 'completed')
    return 'documents.ceremony.alreadySigned';
  if (documentClass === 'gone') return 'documents.ceremony.gone';
  if (documentClass === 'ended') return 'documents.ceremony.ended';
  if (documentClass !== 'waiting' && documentClass !== 'unknown_status')
    return 'documents.ceremony.notPrepared';
  return undefined;
}

/**
 * True for a document whose request is read until it is final: a prepared request (however it
 * came to be), not final by its last read, and not gone.
 */
export function needsTracking(document: DocumentState): boolean {
  if (document.gone || !hasPreparedRequest(document)) return false;
  const stage = stageOfDocument(document);
  return stage === undefined || !isFinalStage(stage);
}
