/**
 * The two answers to a document that needs the user's check (PRODUCT.md §3), as rules: what
 * must hold before a request id is linked, and before a document is sent as a new request. One
 * place, so the app and the command line refuse with the same words.
 */
import type { SigningRequest } from '../../shared/service/wire';
import { isNotFoundAtService, type Result } from '../client/service-failure';
import type { BatchState, DocumentState } from './batch-state';
import { refusalNamesUpload } from './step-machine';

/** Why an answer was not taken: refused for good, to be confirmed by the user, or the service is away for now. */
export type ResolutionRefusal = 'refused' | 'needs_confirmation' | 'service_unreachable';

export type ResolutionOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly refusal: ResolutionRefusal; readonly message: string };

function refused(message: string, refusal: ResolutionRefusal = 'refused'): ResolutionOutcome {
  return { ok: false, refusal, message };
}

/** A request id as services show them: letters, digits, `_`, `-`, `.` and `:`, starting with a letter or digit. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$/;

/** What a document is doing, for a refusal: "is already prepared", "is not sent yet"… */
function stateWords(document: DocumentState): string {
  const { send } = document;
  if (send.prepared) return `is already prepared (request ${send.requestId})`;
  if (send.requestId) return `is already linked to ${send.requestId}`;
  if (send.error) return 'failed: use Retry';
  if (!send.queued) return 'is not sent yet';
  return 'is being sent';
}

/** Why nothing can be resolved for `document`, or undefined when it needs a check. */
export function noCheckProblem(document: DocumentState | undefined): string | undefined {
  if (!document) return 'This document is no longer in the batch.';
  if (document.send.check) return undefined;
  return `${document.draft.externalReference} does not need a check: it ${stateWords(document)}.`;
}

/** True when a request, as read, is already prepared (or further): no participant can be added to it any more. */
export function isPreparedOrLater(request: SigningRequest): boolean {
  return (
    Boolean(request.prepared_at) ||
    ['prepared', 'in_progress', 'completed'].includes(request.status) ||
    request.document?.status === 'prepared' ||
    request.document?.status === 'finalized'
  );
}

/**
 * Why `requestId` cannot be linked to `document` before asking the service: the document must
 * need a check, the id must look like one, and no other document of the data folder may hold it.
 */
export function linkProblemBeforeRead(
  batches: readonly BatchState[],
  document: DocumentState | undefined,
  requestId: string,
): ResolutionOutcome | undefined {
  const noCheck = noCheckProblem(document);
  if (noCheck || !document) return refused(noCheck ?? '');
  if (!REQUEST_ID_PATTERN.test(requestId))
    return refused(
      'Paste the id of the signing request exactly as the service shows it (for example sr_…): letters, digits and _ - . : only.',
    );
  for (const batch of batches) {
    for (const other of batch.documents) {
      if (other.draft.id === document.draft.id) continue;
      if (other.send.requestId === requestId || other.send.check?.newRequestId === requestId)
        return refused(
          `${requestId} already belongs to ${other.draft.externalReference}${batch.name ? ` in ${batch.name}` : ''}: one request cannot serve two documents. It was not linked.`,
        );
    }
  }
  return undefined;
}

/**
 * Why the request the service answered cannot be linked to `document`: it must exist at this
 * connection's service and carry the document's reference; a service that does not show the
 * reference (§4.4 does not list it) needs the user's explicit confirmation.
 */
export function linkProblemAfterRead(
  document: DocumentState,
  requestId: string,
  read: Result<SigningRequest>,
  confirmed: boolean,
): ResolutionOutcome | undefined {
  const reference = document.draft.externalReference;
  if (!read.ok) {
    if (isNotFoundAtService(read.error))
      return refused(
        `The service has no signing request ${requestId} for this connection. Check the id, and that it was made with this batch's connection. Nothing was linked.`,
      );
    // A token that could not be obtained says nothing about the request: try again later.
    if (read.error.retryable || read.error.stage === 'token')
      return refused(
        `${requestId} could not be read, so it was not linked: ${read.error.message} Try again when the service can be reached.`,
        'service_unreachable',
      );
    return refused(`${requestId} could not be read, so it was not linked: ${read.error.message}`);
  }
  const remoteReference = read.value.external_reference;
  if (remoteReference === undefined && !confirmed)
    return refused(
      `The service does not show which reference ${requestId} belongs to, so the app cannot check that it is ${reference}'s. Link it only if you are sure it is.`,
      'needs_confirmation',
    );
  if (remoteReference !== undefined && remoteReference !== reference)
    return refused(
      `${requestId} belongs to reference ${remoteReference}, not ${reference}. It was not linked.`,
    );
  return undefined;
}

/**
 * Whether `document` may be sent as a new request, and if so whether its upload may be kept.
 * Only after a refused key: when the service created a request (without its id, or after an
 * unknown attempt), sending anew would certainly make a second one; the user links instead.
 */
export function sendAsNewDecision(
  document: DocumentState | undefined,
  now: number,
): { readonly ok: true; readonly keepUpload: boolean } | { readonly ok: false; readonly message: string } {
  const noCheck = noCheckProblem(document);
  if (noCheck || !document?.send.check) return { ok: false, message: noCheck ?? '' };
  const { check, upload } = document.send;
  const reference = document.draft.externalReference;
  if (check.reason === 'new_request_after_unknown')
    return {
      ok: false,
      message: `The service has just created ${check.newRequestId ?? 'a request'} for ${reference}: keep it by linking it, or link the earlier one. Sending another would make one more.`,
    };
  if (check.reason === 'created_without_id')
    return {
      ok: false,
      message: `The service said it created a request for ${reference}: find it and link it. Sending another would make a second one.`,
    };
  const uploadNamed = refusalNamesUpload({ code: check.code ?? '', serviceMessage: check.serviceMessage });
  const expired = upload?.expiresAt !== undefined && upload.expiresAt <= now;
  return { ok: true, keepUpload: upload !== undefined && !uploadNamed && !expired };
}
