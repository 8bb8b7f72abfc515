/**
 * One connection's use of the data folder's contract registry (contract-registry.ts): the key a
 * document's creation goes with, who else holds its reference, the claim taken while a key is
 * made, and the generation of a key sent anew on purpose. The send engine asks it; the rules of
 * what to do with the answers are the step machine's.
 */
import type { BatchStore } from '../store/batch-store';
import type { BatchEvent } from '../domain/batch-events';
import type { ConnectionAddress } from '../domain/batch-connection';
import type { DocumentState } from '../domain/batch-state';
import type { ContractDigest } from '../domain/contract-digest';
import type { SameReference } from '../domain/check-resolution';
import { contractIdentity, derivedIdempotencyKey, sameContract } from '../domain/contract-identity';
import type { Holder } from '../domain/contract-identity';
import { ContractRegistry } from './contract-registry';

export class ContractGuard {
  readonly #store: BatchStore;
  readonly #service: ConnectionAddress;
  readonly #registry: ContractRegistry;

  constructor(store: BatchStore, service: ConnectionAddress) {
    this.#store = store;
    this.#service = service;
    this.#registry = ContractRegistry.of(store);
  }

  /** The Idempotency-Key of `document`'s next creation key, derived from the contract and its generation. */
  keyFor(document: DocumentState): string {
    return derivedIdempotencyKey(
      contractIdentity(this.#service, document.draft),
      document.send.generation ?? 0,
    );
  }

  /** The other documents of the data folder that hold, or may hold, a request for `document`'s reference here. */
  holdersOf(batchId: string, document: DocumentState): Holder[] {
    return this.#registry.holdersOf(this.#service, document.draft.externalReference, {
      batchId,
      documentId: document.draft.id,
    });
  }

  /**
   * Claims the reference of every key `events` make, in the turn they were decided in, so that
   * no other document passes the data folder's question for it until they are stored (or not).
   * Returns the release.
   */
  claimKeys(batchId: string, events: readonly BatchEvent[]): () => void {
    const releases = events.flatMap((event) =>
      event.type === 'create_attempted'
        ? [
            this.#registry.claim(this.#service, event.body.external_reference, {
              batchId,
              documentId: event.documentId,
            }),
          ]
        : [],
    );
    return () => {
      for (const release of releases) release();
    };
  }

  /** The other documents of the data folder carrying `document`'s reference, with their batch's name. */
  sameReference(batchId: string, document: DocumentState): SameReference[] {
    return this.#others(batchId, document).map(({ other, batchName }) => ({
      requestId: other.requestId,
      fileName: other.fileName,
      batchName,
    }));
  }

  /**
   * The generation of `document`'s next key when it is sent anew on purpose, or its key was
   * given up: past its own and past every key the data folder made for the same contract, so
   * it can neither replay theirs nor send their key with another body.
   */
  nextGeneration(batchId: string, document: DocumentState): number {
    const identity = contractIdentity(this.#service, document.draft);
    let highest = document.send.generation ?? 0;
    for (const { other } of this.#others(batchId, document)) {
      const its = { ...identity, reference: other.reference, sha256: other.sha256 };
      if (sameContract(its, identity)) highest = Math.max(highest, other.generation);
    }
    return highest + 1;
  }

  /** The other documents carrying `document`'s reference, as their contract digests (a batch at rest is not read). */
  #others(batchId: string, document: DocumentState): { other: ContractDigest; batchName: string }[] {
    const reference = document.draft.externalReference;
    const found: { other: ContractDigest; batchName: string }[] = [];
    for (const ref of this.#registry.carriersOf(reference, { batchId, documentId: document.draft.id })) {
      const batch = this.#store.label(ref.batchId);
      const other = this.#store.contractOf(ref.batchId, ref.documentId);
      if (batch && other && other.reference === reference) found.push({ other, batchName: batch.name });
    }
    return found;
  }
}
