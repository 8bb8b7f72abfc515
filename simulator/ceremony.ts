import type { StoredParticipant, StoredSigningRequest } from './service-state';
import type { StatusChange } from './types';

/**
 * The ceremony's state machine, which the spec leaves "not shown" beyond its snapshots:
 * draft → prepared (prepare) → in_progress (widget opened) → completed (every signer signed).
 * A test may move a request to any other status (`setStatus`): the ceremony then goes on only
 * from `prepared` or `in_progress`.
 */

/** True while signers can sign: the request is prepared or its ceremony under way. */
export function isSignable(request: StoredSigningRequest): boolean {
  return request.status === 'prepared' || request.status === 'in_progress';
}

function signers(request: StoredSigningRequest): StoredParticipant[] {
  return request.participants.filter((participant) => participant.participantType === 'signer');
}

/** True when the request has at least one signer, the condition for preparing it. */
export function hasSigner(request: StoredSigningRequest): boolean {
  return signers(request).length > 0;
}

/** Opening the widget starts the ceremony: the first opening sets opened_at and in_progress. */
export function openCeremony(request: StoredSigningRequest, now: number): void {
  if (request.status !== 'prepared') return;
  request.status = 'in_progress';
  request.openedAt ??= now;
}

/**
 * Signers who may sign now. Without enforced order, every signer who has not signed. With it,
 * the pending signers sharing the lowest signing_order; signers without an order come after
 * every ordered one, and sign in any order among themselves.
 */
export function signersAllowedNow(request: StoredSigningRequest): StoredParticipant[] {
  const pending = signers(request).filter((participant) => participant.signedAt === null);
  if (!request.enforceOrder) return pending;
  const rank = (participant: StoredParticipant) => participant.signingOrder ?? Number.POSITIVE_INFINITY;
  const lowest = Math.min(...pending.map(rank));
  return pending.filter((participant) => rank(participant) === lowest);
}

export type SignOutcome = 'signed' | 'alreadySigned' | 'notASigner' | 'outOfOrder' | 'notSignable';

/** Records one signer's signature, then finalizes the request when every signer has signed. */
export function sign(request: StoredSigningRequest, participantId: string, now: number): SignOutcome {
  const participant = request.participants.find((candidate) => candidate.participantId === participantId);
  if (!participant || participant.participantType !== 'signer') return 'notASigner';
  if (participant.signedAt !== null) return 'alreadySigned';
  if (!isSignable(request)) return 'notSignable';
  if (!signersAllowedNow(request).includes(participant)) return 'outOfOrder';
  openCeremony(request, now);
  participant.signedAt = now;
  finalizeWhenAllSigned(request, now);
  return 'signed';
}

function finalizeWhenAllSigned(request: StoredSigningRequest, now: number): void {
  if (request.status === 'completed') return;
  if (signers(request).some((participant) => participant.signedAt === null)) return;
  request.status = 'completed';
  request.documentStatus = 'finalized';
  request.finalizedAt = now;
}

/**
 * Runs the whole ceremony at once, as if every signer signed in order through the widget.
 * Throws when the request has not been prepared: there is no ceremony to run yet.
 */
export function completeCeremony(request: StoredSigningRequest, now: number): void {
  if (request.status === 'draft') {
    throw new Error(`signing request ${request.id} is not prepared; prepare it before completing it`);
  }
  if (request.status === 'completed') return;
  if (!isSignable(request)) {
    throw new Error(
      `signing request ${request.id} is ${request.status}; put it back in_progress before completing it`,
    );
  }
  openCeremony(request, now);
  for (let next = signersAllowedNow(request); next.length > 0; next = signersAllowedNow(request)) {
    for (const participant of next) sign(request, participant.participantId, now);
  }
}

/**
 * Puts a request in the status a test chose (the spec's list of statuses is "not shown"): any
 * status word, optionally its document's status, and `finalized_at` set now or cleared.
 */
export function setRequestStatus(request: StoredSigningRequest, change: StatusChange, now: number): void {
  request.status = change.status;
  if (change.documentStatus !== undefined) request.documentStatus = change.documentStatus;
  if (change.finalized === true) request.finalizedAt ??= now;
  if (change.finalized === false) request.finalizedAt = null;
}
