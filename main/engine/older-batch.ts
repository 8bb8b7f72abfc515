/**
 * Batches an earlier version sent before a batch was bound to its connection (PRODUCT.md
 * "Connections"). Where they went is not recorded, so a connection is bound to one only on
 * proof: it holds one of the batch's requests, with that document's reference. Never because it
 * happens to be active, or typed on a command line: a wrong guess would read every request at
 * the wrong service and mark it gone, or continue the batch there.
 */
import { err, ok, type Result } from '../../shared/base/result';
import type { ServiceClient } from '../client/service-client';
import { isNotFoundAtService } from '../domain/service-failure';
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

/** Why a batch was not bound, in words. */
export interface AdoptionRefused {
  readonly reason: string;
  /** The service itself said the request is not its own (asking it again is no use). */
  readonly answered?: boolean;
}

export type Adoption = Result<void, AdoptionRefused>;

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
  const where = `${client.address.baseUrl} (client ${client.address.clientId})`;
  const earlier = 'This batch was sent by an earlier version of the app, which did not record its connection';
  const withRequests = batch.documents.filter((document) => document.send.requestId !== undefined);
  if (withRequests.length === 0)
    return err({
      answered: true, // nothing to ask about until one of its documents holds a request
      reason: `This batch was started by an earlier version of the app, which did not record its connection, and none of its documents has a signing request yet that would show where it went. Make the connection it was sent with the active one, then press Send: it is continued with that connection only.`,
    });
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
        return err({
          reason: `${earlier}, and ${where} did not answer within ${PROOF_TIMEOUT_MS / 1000} s whether it holds its requests. The app asks again in a minute; it is tracked only with the connection that holds them.`,
        });
      }
      if (!read.ok)
        return err({
          answered: isNotFoundAtService(read.error),
          reason: `${earlier}, and ${where} could not show that it holds its request for ${document.draft.externalReference} (${read.error.message}). Make the connection it was sent with the active one (Connections) to track it; it is then tracked with that connection only.`,
        });
      const reference = read.value.external_reference;
      if (reference !== undefined && reference !== document.draft.externalReference)
        return err({
          answered: true,
          reason: `${earlier}, and the request ${requestId} at ${where} belongs to another reference (${reference}), not ${document.draft.externalReference}. Make the connection it was sent with the active one (Connections) to track it.`,
        });
    }
    await store.bindConnection(batch.id, client.address);
    return ok();
  } finally {
    endDeadline();
  }
}
