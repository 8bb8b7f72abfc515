/**
 * The two answers to a document that needs the user's check (README "Sending exactly once"), as rules: what
 * must hold before a request id is linked, and before a document is sent as a new request. One
 * place, so the app and the command line refuse with the same words.
 */
import { err, ok, type Err, type Result } from '../../shared/base/result';
import { isPreparedOrLater, statusFactsOf } from '../../shared/service/status';
import type { SigningRequest } from '../../shared/service/wire';
import { isNotFoundAtService, serviceFailureWords, type ServiceResult } from './service-failure';
import type { DocumentState } from './batch-state';
import { carriesRequest, type ContractInBatch } from './contract-digest';
import { refusalNamesUpload } from './answer-kinds';
import { words } from '../base/words';

/** Why an answer was not taken: refused for good, to be confirmed by the user, or the service is away for now. */
export type ResolutionRefusal = 'refused' | 'needs_confirmation' | 'service_unreachable';

/** An answer not taken: how, and why in words. */
export interface ResolutionRefused {
  readonly refusal: ResolutionRefusal;
  readonly message: string;
}

export type ResolutionOutcome = Result<void, ResolutionRefused>;

function refused(message: string, refusal: ResolutionRefusal = 'refused'): Err<ResolutionRefused> {
  return err({ refusal, message });
}

/** A request id as services show them: letters, digits, `_`, `-`, `.` and `:`, starting with a letter or digit. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$/;

/** What a document is doing, for a refusal: "is already prepared", "is not sent yet"… */
function stateWords(document: DocumentState): string {
  const { send } = document;
  const t = words();
  if (send.prepared) return t('check.statePrepared', { requestId: send.requestId ?? '' });
  if (send.requestId) return t('check.stateLinked', { requestId: send.requestId });
  if (send.error) return t('check.stateFailed');
  if (!send.queued) return t('check.stateNotSent');
  return t('check.stateSending');
}

/** Why nothing can be resolved for `document`, or undefined when it needs a check. */
export function noCheckProblem(document: DocumentState | undefined): string | undefined {
  if (!document) return words()('errors.documentNotFound');
  if (document.send.check) return undefined;
  return words()('check.noCheck', {
    reference: document.draft.externalReference,
    state: stateWords(document),
  });
}

/** True when a request, as read, is already prepared (or further): no participant can be added to it any more. */
export function isReadPreparedOrLater(request: SigningRequest): boolean {
  return isPreparedOrLater(statusFactsOf(request));
}

/**
 * Why `requestId` cannot be linked to `document` before asking the service: the document must
 * need a check, the id must look like one, and no other document of the data folder may hold it.
 */
export function linkProblemBeforeRead(
  contracts: Iterable<ContractInBatch>,
  document: DocumentState | undefined,
  requestId: string,
): Err<ResolutionRefused> | undefined {
  const noCheck = noCheckProblem(document);
  if (noCheck || !document) return refused(noCheck ?? '');
  if (!REQUEST_ID_PATTERN.test(requestId)) return refused(words()('check.badId'));
  for (const { batchName, contract: other } of contracts) {
    if (other.documentId === document.draft.id || !carriesRequest(other, requestId)) continue;
    return refused(
      batchName
        ? words()('check.idTakenInBatch', { requestId, reference: other.reference, batch: batchName })
        : words()('check.idTaken', { requestId, reference: other.reference }),
    );
  }
  return undefined;
}

/** Another document of the data folder with the same reference, and where it is. */
export interface SameReference {
  /** Its request, once it has one. */
  readonly requestId: string | undefined;
  /** Its PDF's name as the person picked it. */
  readonly fileName: string;
  readonly batchName: string;
}

/**
 * Why the request the service answered cannot be linked to `document`: it must exist at this
 * connection's service and carry the document's reference; a service that does not show the
 * reference (§4.4 does not list it) needs the user's explicit confirmation, and so does a
 * reference that another document without a request yet also carries (`others`): the request
 * may be that one's, and linking it here would add this document's people to another's contract.
 */
export function linkProblemAfterRead(
  document: DocumentState,
  requestId: string,
  read: ServiceResult<SigningRequest>,
  confirmed: boolean,
  others: readonly SameReference[] = [],
): Err<ResolutionRefused> | undefined {
  const reference = document.draft.externalReference;
  if (!read.ok) {
    if (isNotFoundAtService(read.error)) return refused(words()('check.notAtService', { requestId }));
    // A token that could not be obtained says nothing about the request: try again later.
    if (read.error.retryable || read.error.stage === 'token')
      return refused(
        words()('check.unreadableRetry', { requestId, reason: serviceFailureWords(read.error, words()) }),
        'service_unreachable',
      );
    return refused(
      words()('check.unreadable', { requestId, reason: serviceFailureWords(read.error, words()) }),
    );
  }
  const remoteReference = read.value.external_reference;
  if (remoteReference === undefined && !confirmed)
    return refused(words()('check.referenceUnknown', { requestId, reference }), 'needs_confirmation');
  if (remoteReference !== undefined && remoteReference !== reference)
    return refused(words()('check.otherReference', { requestId, remoteReference, reference }));
  const other = others.find((candidate) => candidate.requestId === undefined);
  if (other && !confirmed)
    return refused(
      words()('check.sameReferenceOther', {
        requestId,
        reference,
        file: document.draft.pdf.originalName,
        otherFile: other.fileName,
        otherBatch: other.batchName,
      }),
      'needs_confirmation',
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
): Result<{ readonly keepUpload: boolean }, string> {
  const noCheck = noCheckProblem(document);
  if (noCheck || !document?.send.check) return err(noCheck ?? '');
  const { check, upload } = document.send;
  const reference = document.draft.externalReference;
  if (check.reason === 'new_request_after_unknown')
    return err(
      check.newRequestId
        ? words()('check.justCreated', { requestId: check.newRequestId, reference })
        : words()('check.justCreatedUnnamed', { reference }),
    );
  if (check.reason === 'created_without_id') return err(words()('check.createdFindIt', { reference }));
  // Held elsewhere, or at the service from elsewhere: nothing of this document's own reached the
  // service; sending it makes a second request, which the user chose after the warning.
  const uploadNamed = refusalNamesUpload({ code: check.code, serviceMessage: check.serviceMessage });
  const expired = upload?.expiresAt !== undefined && upload.expiresAt <= now;
  return ok({ keepUpload: upload !== undefined && !uploadNamed && !expired });
}
