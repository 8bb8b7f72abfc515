/**
 * Batches an earlier version sent before a batch was bound to its connection (PRODUCT.md
 * "Connections"). Where they went is not recorded, so a connection is bound to one only on
 * proof: it holds one of the batch's requests, with that document's reference. Never because it
 * happens to be active, or typed on a command line: a wrong guess would read every request at
 * the wrong service and mark it gone, or continue the batch there.
 */
import type { ServiceClient } from '../client/service-client';
import { isNotFoundAtService } from '../client/service-failure';
import type { BatchStore } from '../store/batch-store';
import type { BatchState } from './batch-state';

/** True for a batch an earlier version sent: not bound, yet some document has gone to a service. */
export function isOlderBatch(batch: BatchState): boolean {
  return (
    !batch.connection &&
    batch.documents.some((document) => document.send.queued || document.send.requestId !== undefined)
  );
}

export type Adoption =
  | { readonly ok: true }
  /** `answered`: the service itself said the request is not its own (asking it again is no use). */
  | { readonly ok: false; readonly reason: string; readonly answered?: boolean };

/**
 * Binds `batch` (an older one) to `client`'s connection when that service holds one of its
 * requests: one read of one request id. Says why not otherwise; nothing is recorded then.
 */
export async function adoptOlderBatch(
  store: BatchStore,
  batch: BatchState,
  client: ServiceClient,
): Promise<Adoption> {
  const where = `${client.address.baseUrl} (client ${client.address.clientId})`;
  const witness = batch.documents.find((document) => document.send.requestId !== undefined);
  const requestId = witness?.send.requestId;
  if (!witness || !requestId)
    return {
      ok: false,
      reason: `This batch was started by an earlier version of the app, which did not record its connection, and none of its documents has a signing request yet that would show where it went. Make the connection it was sent with the active one, then press Send: it is continued with that connection only.`,
    };
  const read = await client.getSigningRequest(requestId, { maxAttempts: 2 });
  if (!read.ok)
    return {
      ok: false,
      answered: isNotFoundAtService(read.error),
      reason: `This batch was sent by an earlier version of the app, which did not record its connection, and ${where} could not show that it holds its requests (${read.error.message}). Make the connection it was sent with the active one (Connections) to track it; it is then tracked with that connection only.`,
    };
  const reference = read.value.external_reference;
  if (reference !== undefined && reference !== witness.draft.externalReference)
    return {
      ok: false,
      answered: true,
      reason: `This batch was sent by an earlier version of the app, which did not record its connection, and the request ${requestId} at ${where} belongs to another reference (${reference}). Make the connection it was sent with the active one (Connections) to track it.`,
    };
  await store.bindConnection(batch.id, client.address);
  return { ok: true };
}
