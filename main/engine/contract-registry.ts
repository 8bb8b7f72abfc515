/**
 * The data folder's answer to "does this service already hold, or may it hold, a request for
 * this reference?" (ARCHITECTURE.md "Principles the code keeps": a contract is known by what it is, not where its files lie).
 * Asked before every creation key is made: a moved or copied folder, a second batch, or the
 * same PDF added twice never sends a contract again by itself. One registry per data folder,
 * shared by every connection's engine; it follows the store's records, and holds the claims of
 * keys being made right now, so that two runs never both pass the question for one reference.
 */
import type { BatchStore } from '../store/batch-store';
import type { BatchEvent } from '../domain/batch-events';
import type { BatchState } from '../domain/batch-state';
import { connectionKey, sameConnection, type ConnectionAddress } from '../domain/batch-connection';
import type { BatchOutline } from '../domain/batch-outline';
import type { ContractDigest } from '../domain/contract-digest';
import { isOlderBatch } from './older-batch';

import type { Holder } from '../domain/contract-identity';

export { mayHoldRequest } from '../domain/batch-state';

/** Where a document lives: its batch and its id. */
export interface DocumentRef {
  readonly batchId: string;
  readonly documentId: string;
}

function refKey(ref: DocumentRef): string {
  return `${ref.batchId}/${ref.documentId}`;
}

function claimKey(service: ConnectionAddress, reference: string): string {
  return `${connectionKey(service)}\n${reference}`;
}

/** A batch as the registry's answers name it. */
type BatchLabel = Pick<BatchOutline, 'id' | 'name' | 'connection'>;

const registries = new WeakMap<BatchStore, ContractRegistry>();

/** Which documents of a data folder carry each reference, kept up to date with the store. */
export class ContractRegistry {
  readonly #store: BatchStore;
  /**
   * Reference → documents carrying it (most references: one). Kept lean, as a year of
   * documents is indexed here: no key is made per document, each string is the batch's own.
   */
  readonly #byReference = new Map<string, DocumentRef[]>();
  /** Batch → document → its reference, to move it when it is edited. */
  readonly #referenceOf = new Map<string, Map<string, string>>();
  /** Keys being made now: (service, reference) → the document making one. */
  readonly #claims = new Map<string, DocumentRef>();

  private constructor(store: BatchStore) {
    this.#store = store;
    // From what each batch keeps of its documents' contracts: a batch at rest is not read for it.
    for (const batch of store.outlines()) {
      for (const contract of store.contracts(batch.id))
        this.#index(batch.id, contract.documentId, contract.reference);
    }
    store.subscribe((state, events) => this.#follow(state, events));
  }

  /** The registry of `store`'s data folder (one per store). */
  static of(store: BatchStore): ContractRegistry {
    let registry = registries.get(store);
    if (!registry) {
      registry = new ContractRegistry(store);
      registries.set(store, registry);
    }
    return registry;
  }

  #index(batchId: string, documentId: string, reference: string): void {
    let references = this.#referenceOf.get(batchId);
    if (!references) {
      references = new Map();
      this.#referenceOf.set(batchId, references);
    }
    const before = references.get(documentId);
    if (before === reference) return;
    if (before !== undefined) this.#unlist(before, batchId, documentId);
    references.set(documentId, reference);
    const ref = { batchId, documentId };
    const carriers = this.#byReference.get(reference);
    if (carriers) carriers.push(ref);
    else this.#byReference.set(reference, [ref]);
  }

  /** Takes a document off the carriers of `reference`. */
  #unlist(reference: string, batchId: string, documentId: string): void {
    const carriers = this.#byReference.get(reference) ?? [];
    const kept = carriers.filter((ref) => ref.batchId !== batchId || ref.documentId !== documentId);
    if (kept.length > 0) this.#byReference.set(reference, kept);
    else this.#byReference.delete(reference);
  }

  /** The document `ref` names as its contract digest now, with its batch; undefined when it is no more. */
  #contractOf(ref: DocumentRef): { batch: BatchLabel; contract: ContractDigest } | undefined {
    const batch = this.#store.label(ref.batchId);
    const contract = this.#store.contractOf(ref.batchId, ref.documentId);
    return batch && contract && { batch, contract };
  }

  /**
   * True when `batch` went, or may have gone, to `service`: bound there, or sent by an earlier
   * version that did not record where (such a batch is never at rest: it is in memory).
   */
  #mayBeAt(batch: BatchLabel, service: ConnectionAddress): boolean {
    if (batch.connection) return sameConnection(batch.connection, service);
    const state = this.#store.get(batch.id);
    return state !== undefined && isOlderBatch(state);
  }

  #follow(state: BatchState, events: readonly BatchEvent[]): void {
    for (const event of events) {
      if (event.type === 'document_added' || event.type === 'document_edited')
        this.#index(state.id, event.document.id, event.document.externalReference);
      else if (event.type === 'document_removed') {
        const references = this.#referenceOf.get(state.id);
        const reference = references?.get(event.documentId);
        if (reference !== undefined) this.#unlist(reference, state.id, event.documentId);
        references?.delete(event.documentId);
      }
    }
  }

  /**
   * The other documents of the data folder that hold, or may hold, a request for `reference` at
   * `service`, or are making a key for it right now. `self` is never its own holder.
   */
  holdersOf(service: ConnectionAddress, reference: string, self: DocumentRef): Holder[] {
    const holders: Holder[] = [];
    const selfKey = refKey(self);
    for (const ref of this.#byReference.get(reference) ?? []) {
      if (refKey(ref) === selfKey) continue;
      const found = this.#contractOf(ref);
      if (!found || found.contract.reference !== reference) continue;
      if (!this.#mayBeAt(found.batch, service) || !found.contract.mayHold) continue;
      holders.push(holderOf(found.batch, found.contract, false));
    }
    for (const contract of this.#store.deletedContracts()) {
      if (contract.reference !== reference) continue;
      if (contract.connection !== undefined && !sameConnection(contract.connection, service)) continue;
      if (contract.batchId === self.batchId && contract.documentId === self.documentId) continue;
      holders.push({
        batchId: contract.batchId,
        batchName: contract.batchName,
        documentId: contract.documentId,
        fileName: contract.fileName,
        requestId: contract.requestId,
        claimed: false,
        deleted: true,
      });
    }
    const claimant = this.#claims.get(claimKey(service, reference));
    if (
      claimant &&
      refKey(claimant) !== selfKey &&
      !holders.some((holder) => refKey(holder) === refKey(claimant))
    ) {
      const found = this.#contractOf(claimant);
      if (found) holders.push(holderOf(found.batch, found.contract, true));
    }
    return holders;
  }

  /**
   * Claims `reference` at `service` for `owner` while its creation key is made: until
   * `release`, every other document asking `holdersOf` sees it. Synchronous, so that asking and
   * claiming happen in one turn of the event loop. Returns the release function.
   */
  claim(service: ConnectionAddress, reference: string, owner: DocumentRef): () => void {
    const key = claimKey(service, reference);
    this.#claims.set(key, owner);
    return () => {
      if (this.#claims.get(key) === owner) this.#claims.delete(key);
    };
  }

  /** Every other document of the data folder carrying `reference`, whatever its state (for the review's words). */
  carriersOf(reference: string, self: DocumentRef): DocumentRef[] {
    const selfKey = refKey(self);
    return (this.#byReference.get(reference) ?? []).filter((ref) => refKey(ref) !== selfKey);
  }
}

function holderOf(batch: BatchLabel, contract: ContractDigest, claimed: boolean): Holder {
  return {
    batchId: batch.id,
    batchName: batch.name,
    documentId: contract.documentId,
    fileName: contract.fileName,
    requestId: contract.requestId ?? contract.newRequestId,
    claimed,
  };
}
