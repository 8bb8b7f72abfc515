/**
 * What a contract is, whatever folder its files lie in (README "Answers the spec does not pin down"):
 * the service it goes to, its reference and its PDF's digest. A moved, renamed or copied
 * folder, or a second desk, holds the same contract; the creation's Idempotency-Key is derived
 * from it, so the service itself recognises the contract when it comes again from anywhere, as
 * long as it keeps the key. The people who receive it are left out on purpose: a name corrected
 * in the spreadsheet on a second desk is still the same document under the same reference, and
 * must meet the first desk's key rather than make a second request.
 */
import { createHash } from 'node:crypto';
import type { DocumentDraft } from '../../shared/domain/batch';
import { canonicalBaseUrl, type ConnectionAddress } from './batch-connection';

/** The identity of one contract at one service. */
export interface ContractIdentity {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly reference: string;
  /** SHA-256 of the PDF, lower-case hex. */
  readonly sha256: string;
}

/** The identity of `draft` sent to `service`. */
export function contractIdentity(service: ConnectionAddress, draft: DocumentDraft): ContractIdentity {
  return {
    baseUrl: canonicalBaseUrl(service.baseUrl),
    clientId: service.clientId,
    reference: draft.externalReference,
    sha256: draft.pdf.sha256,
  };
}

/** Prefix of every derived key: says who made it and how, for a service operator reading logs. */
const KEY_PREFIX = 'sbd1-';

/**
 * The Idempotency-Key of a contract's creation, derived from its identity and a generation:
 * the same contract sent from any folder or desk gets the same key for the same generation, so
 * the service answers with a replay or refuses the key instead of creating a second request.
 * The generation grows each time a document's key is given up (the service refused it and
 * provably applied nothing, or the user sent anew on purpose): a key is never sent again with
 * another body. 69 printable ASCII characters, within what services accept (1 to 255).
 */
export function derivedIdempotencyKey(identity: ContractIdentity, generation: number): string {
  const digest = createHash('sha256')
    .update(
      JSON.stringify([identity.baseUrl, identity.clientId, identity.reference, identity.sha256, generation]),
    )
    .digest('hex');
  return `${KEY_PREFIX}${digest}`;
}

/** True when two identities are the same contract at the same service. */
export function sameContract(a: ContractIdentity, b: ContractIdentity): boolean {
  return (
    a.baseUrl === b.baseUrl &&
    a.clientId === b.clientId &&
    a.reference === b.reference &&
    a.sha256 === b.sha256
  );
}

/** A document of the data folder that holds, or may hold, a request for a reference. */
export interface Holder {
  readonly batchId: string;
  readonly batchName: string;
  readonly documentId: string;
  readonly fileName: string;
  /** The request it holds, when its id is known. */
  readonly requestId: string | undefined;
  /** Its creation key is being made right now (not durable yet). */
  readonly claimed: boolean;
  /** Its batch was deleted from the data folder since (its request stays at the service). */
  readonly deleted?: boolean;
}
