/**
 * Batches an earlier version sent before a batch was bound to its connection (README
 * "Using the app", Connections). Where they went is not recorded, so a connection is bound to one only on
 * proof: it holds one of the batch's requests, with that document's reference. Never because it
 * happens to be active, or typed on a command line: a wrong guess would read every request at
 * the wrong service and mark it gone, or continue the batch there.
 */
import { err, ok, type Err, type Result } from '../../shared/base/result';
import { englishWords, type Translator } from '../../shared/i18n/translator';
import type { ServiceClient } from '../client/service-client';
import { isNotFoundAtService, serviceFailureWords, type ServiceFailure } from '../domain/service-failure';
import type { BatchStore } from '../store/batch-store';
import { systemClock, type Clock } from '../time/clock';
import type { BatchState } from '../domain/batch-state';

/** True for a batch an earlier version sent: not bound, yet some document has gone to a service. */
export function isOlderBatch(batch: BatchState): boolean {
  return (
    !batch.connection &&
    batch.documents.some((document) => document.send.queued || document.send.requestId !== undefined)
  );
}

/** Why a connection was not bound to an older batch, for a view to word in its language (`olderBatchReason`). */
export type OlderBatchRefusal =
  /** None of its documents holds a request yet: nothing shows where it went. */
  | { readonly kind: 'no_request' }
  /** The service did not answer within the proof's time. */
  | { readonly kind: 'no_answer'; readonly where: ServiceAddress; readonly seconds: number }
  /** The service could not show it holds the request of `reference`. */
  | {
      readonly kind: 'unreadable';
      readonly where: ServiceAddress;
      readonly reference: string;
      readonly failure: Pick<ServiceFailure, 'code' | 'serviceMessage' | 'serviceCode'>;
    }
  /** The request at the service belongs to another reference. */
  | {
      readonly kind: 'other_reference';
      readonly where: ServiceAddress;
      readonly requestId: string;
      readonly remoteReference: string;
      readonly reference: string;
    };

type ServiceAddress = ServiceClient['address'];

/** Why a batch was not bound. */
export interface AdoptionRefused {
  /** In English (the command line's). */
  readonly reason: string;
  /** For a view's language (`olderBatchReason`). */
  readonly refusal: OlderBatchRefusal;
  /** The service itself said the request is not its own (asking it again is no use). */
  readonly answered?: boolean;
}

export type Adoption = Result<void, AdoptionRefused>;

/** Why a connection was not bound to an older batch, in `t`'s language (English unless given). */
export function olderBatchReason(refusal: OlderBatchRefusal, t: Translator['t'] = englishWords()): string {
  switch (refusal.kind) {
    case 'no_request':
      return t('connections.olderNoRequest');
    case 'no_answer':
      return t('connections.olderNoAnswer', { ...refusal.where, seconds: refusal.seconds });
    case 'unreadable':
      return t('connections.olderUnreadable', {
        ...refusal.where,
        reference: refusal.reference,
        reason: serviceFailureWords(refusal.failure, t),
      });
    case 'other_reference':
      return t('connections.olderOtherReference', {
        ...refusal.where,
        requestId: refusal.requestId,
        remoteReference: refusal.remoteReference,
        reference: refusal.reference,
      });
  }
}

/** A refusal, with its English words. */
function refused(refusal: OlderBatchRefusal, answered?: boolean): Err<AdoptionRefused> {
  return err({ reason: olderBatchReason(refusal), refusal, ...(answered === undefined ? {} : { answered }) });
}

/** A promise that rejects once `signal` is aborted (and never settles before). */
function rejectedWhenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** True for an older batch some of whose documents hold a request: where it went can be proved. */
export function holdsRequests(batch: BatchState): boolean {
  return isOlderBatch(batch) && batch.documents.some((document) => document.send.requestId !== undefined);
}

/** How long proving a batch may take in all: it runs while the user waits, or in the background. */
const PROOF_TIMEOUT_MS = 10_000;

/**
 * Binds `batch` (an older one) to `client`'s connection when that service holds every one of
 * its requests, each with its document's reference: an earlier version could split a batch
 * across two services, and one request proves nothing for the others. Says why not otherwise;
 * nothing is recorded then. The proof's deadline runs on `clock` (the app's one clock).
 */
export async function adoptOlderBatch(
  store: BatchStore,
  batch: BatchState,
  client: ServiceClient,
  signal?: AbortSignal,
  clock: Clock = systemClock,
): Promise<Adoption> {
  const where = { baseUrl: client.address.baseUrl, clientId: client.address.clientId };
  const withRequests = batch.documents.filter((document) => document.send.requestId !== undefined);
  // Nothing to ask about until one of its documents holds a request.
  if (withRequests.length === 0) return refused({ kind: 'no_request' }, true);
  const deadline = new AbortController();
  // Housekeeping only: it must not keep a command-line run alive once the proof has ended.
  const endDeadline = clock.timer(
    PROOF_TIMEOUT_MS,
    () => deadline.abort(new DOMException('The proof took too long.', 'TimeoutError')),
    true,
  );
  const bound = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
  try {
    for (const document of withRequests) {
      const requestId = document.send.requestId as string;
      let read: Awaited<ReturnType<ServiceClient['getSigningRequest']>>;
      try {
        // Raced against the deadline too: a token request on the way is not abortable.
        const reading = client.getSigningRequest(requestId, { maxAttempts: 2, signal: bound });
        reading.catch(() => undefined);
        read = await Promise.race([reading, rejectedWhenAborted(bound)]);
      } catch {
        // Aborted: the service took too long to answer (or the app is closing). Asked again later.
        return refused({ kind: 'no_answer', where, seconds: PROOF_TIMEOUT_MS / 1000 });
      }
      if (!read.ok)
        return refused(
          { kind: 'unreadable', where, reference: document.draft.externalReference, failure: read.error },
          isNotFoundAtService(read.error),
        );
      const reference = read.value.external_reference;
      if (reference !== undefined && reference !== document.draft.externalReference)
        return refused(
          {
            kind: 'other_reference',
            where,
            requestId,
            remoteReference: reference,
            reference: document.draft.externalReference,
          },
          true,
        );
    }
    await store.bindConnection(batch.id, client.address);
    return ok();
  } finally {
    endDeadline();
  }
}
