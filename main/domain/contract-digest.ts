/**
 * What the data folder's questions about contracts need of one document, whatever batch it is
 * in: does it hold, or may it hold, a request for its reference (contract-registry.ts), which
 * request ids it carries (a link or a `Location` must not take another document's request),
 * and the key generation of its contract (a key is never made twice). A batch at rest keeps
 * these digests instead of its documents, so every question is answered without reading it.
 */
import { mayHoldRequest, type DocumentState } from './batch-state';

export interface ContractDigest {
  readonly documentId: string;
  readonly reference: string;
  /** SHA-256 of its PDF, lower-case hex. */
  readonly sha256: string;
  /** The PDF's name as the person picked it, to say which document holds a reference. */
  readonly fileName: string;
  readonly requestId: string | undefined;
  /** The request a pending check is about (the service answered with it), when any. */
  readonly newRequestId: string | undefined;
  /** The generation of its creation key (`SendRecord.generation`). */
  readonly generation: number;
  /** The service holds, or may hold, a request made for it (`mayHoldRequest`). */
  readonly mayHold: boolean;
}

/** A document's digest with the name of its batch, as questions over the whole data folder go through them. */
export interface ContractInBatch {
  readonly batchName: string;
  readonly contract: ContractDigest;
}

/** The digest of `document` as it is now. */
export function contractDigestOf(document: DocumentState): ContractDigest {
  const { draft, send } = document;
  return {
    documentId: draft.id,
    reference: draft.externalReference,
    sha256: draft.pdf.sha256,
    fileName: draft.pdf.originalName,
    requestId: send.requestId,
    newRequestId: send.check?.newRequestId,
    generation: send.generation ?? 0,
    mayHold: mayHoldRequest(document),
  };
}

/** True when `digest`'s document carries `requestId`: its own request, or the one its check is about. */
export function carriesRequest(digest: ContractDigest, requestId: string): boolean {
  return digest.requestId === requestId || digest.newRequestId === requestId;
}
