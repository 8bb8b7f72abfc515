/**
 * "Link the existing request" for a document that needs the user's check: what must hold
 * before a pasted request id is accepted (PRODUCT.md §3). One place for the rule, so the app
 * and the command line refuse a wrong link with the same words.
 */
import type { SigningRequest } from '../../shared/service/wire';
import type { Result } from '../client/service-failure';
import type { DocumentState } from './batch-state';

export type LinkOutcome = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** A request id as the service shows it: printable, no spaces or slashes, at most 200 characters. */
const REQUEST_ID_PATTERN = /^[\x21-\x2e\x30-\x7e]{1,200}$/;

/**
 * Why `requestId` cannot be linked to `document`, or undefined when it can. Without `read`
 * (before asking the service) only the document and the id's form are checked; with it, the
 * request must exist at this connection's service and carry the document's reference.
 */
export function linkProblem(
  document: DocumentState | undefined,
  requestId: string,
  read: Result<SigningRequest> | undefined,
): string | undefined {
  if (!document) return 'This document is no longer in the batch.';
  if (!document.send.check) return 'This document does not need a check: nothing to link.';
  if (!REQUEST_ID_PATTERN.test(requestId))
    return 'Paste the id of the signing request exactly as the service shows it (for example sr_…), without spaces.';
  if (!read) return undefined;
  const reference = document.draft.externalReference;
  if (!read.ok) {
    if (read.error.httpStatus === 404)
      return `The service has no signing request ${requestId} for this connection. Check the id, and that it was made with this batch's connection.`;
    return `The request could not be read, so it was not linked: ${read.error.message}`;
  }
  const remoteReference = read.value.external_reference;
  if (remoteReference === undefined)
    return `The service did not say which reference ${requestId} belongs to, so the app cannot check that it is ${reference}'s. It was not linked.`;
  if (remoteReference !== reference)
    return `${requestId} belongs to reference ${remoteReference}, not ${reference}. It was not linked.`;
  return undefined;
}

function utcMinute(iso: string | undefined): string {
  return iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : 'an earlier run';
}

/**
 * The plain words of a document that needs the user's check: what the app knows, and why it
 * will not send it again by itself. One place for the app and the command line.
 */
export function checkExplanation(document: DocumentState): string {
  const check = document.send.check;
  if (!check) return '';
  const reference = document.draft.externalReference;
  const first = `A signing request for ${reference} may already exist at the service: the first attempt to create it left at ${utcMinute(check.firstAttemptAt)} and its answer never arrived.`;
  const detail = check.code
    ? ` (error "${check.code}"${check.serviceMessage ? `: ${check.serviceMessage}` : ''})`
    : '';
  switch (check.reason) {
    case 'key_refused':
      return `${first} The service now refuses that attempt's key${detail}, so the app cannot tell whether the request was created. It will not send ${reference} again by itself. Look for ${reference} at the service: link the request if it is there, or send ${reference} as a new request if it is not.`;
    case 'new_request_after_unknown':
      return `${first} The service has now created ${check.newRequestId ?? 'a request'} without recognising the earlier attempt, so ${reference} may have two requests. Look for ${reference} at the service: link the one to keep, or continue with ${check.newRequestId ?? 'the new one'} if it is the only one.`;
    case 'created_without_id':
      return `The service accepted the creation of ${reference}'s signing request but did not say its id, so the app cannot follow it. Look for ${reference} at the service and link its request.`;
  }
}
