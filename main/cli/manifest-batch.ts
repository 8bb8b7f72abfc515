/**
 * Which batch `send MANIFEST` continues. A batch is found by its manifest's path, or, when the
 * folder was moved or renamed, by its contracts: the data folder already holds requests for the
 * manifest's references at this service. A copy of a folder whose original is still there is
 * never sent again by itself: the person says whether to continue that batch from here
 * (`--continue-batch`) or to send anew on purpose (`--send-new --confirm`).
 */
import { existsSync } from 'node:fs';
import { sameConnection, type ConnectionAddress } from '../batch/batch-connection';
import type { BatchState } from '../batch/batch-state';
import { ContractRegistry } from '../batch/contract-registry';
import type { ManifestDocument } from '../batch/manifest';
import type { BatchStore } from '../store/batch-store';

/** A batch of the data folder holding some of the manifest's references. */
export interface HoldingBatch {
  readonly batch: BatchState;
  /** The manifest's references it holds, in manifest order. */
  readonly references: readonly string[];
  /** How many of them are the very same contract (same reference and PDF). */
  readonly sameContracts: number;
}

export type ManifestBatch =
  /** The batch made from this very path. */
  | { readonly kind: 'same-path'; readonly batch: BatchState }
  /** The batch whose manifest is no longer at its path: the folder moved here. */
  | { readonly kind: 'moved'; readonly batch: BatchState; readonly from: string }
  /** No batch holds any of its references: a new batch. */
  | { readonly kind: 'new' }
  /** Other batches hold some of its references, and their manifests are still where they were (copies). */
  | { readonly kind: 'held'; readonly holders: readonly HoldingBatch[] };

/**
 * The batch `send` continues for `manifestPath` at `service`. Nothing is written here: the
 * caller records the new path of a moved batch.
 */
export function findManifestBatch(
  store: BatchStore,
  service: ConnectionAddress,
  manifestPath: string,
  documents: readonly Pick<ManifestDocument, 'externalReference' | 'pdf'>[],
): ManifestBatch {
  const samePath = store.list().find((batch) => batch.source === manifestPath);
  if (samePath) return { kind: 'same-path', batch: samePath };
  const registry = ContractRegistry.of(store);
  const holding = new Map<string, { batch: BatchState; references: string[]; sameContracts: number }>();
  for (const document of documents) {
    const holders = registry.holdersOf(service, document.externalReference, { batchId: '', documentId: '' });
    for (const holder of holders) {
      const batch = store.get(holder.batchId);
      if (!batch) continue;
      const entry = holding.get(batch.id) ?? { batch, references: [], sameContracts: 0 };
      if (!entry.references.includes(document.externalReference)) {
        entry.references.push(document.externalReference);
        const held = batch.documents.find((candidate) => candidate.draft.id === holder.documentId);
        if (held && document.pdf && held.draft.pdf.sha256 === document.pdf.sha256) entry.sameContracts += 1;
      }
      holding.set(batch.id, entry);
    }
  }
  const holders = [...holding.values()];
  const [only] = holders;
  if (!only) return { kind: 'new' };
  if (holders.length === 1 && only.batch.source !== undefined && !existsSync(only.batch.source))
    return { kind: 'moved', batch: only.batch, from: only.batch.source };
  return { kind: 'held', holders };
}

/**
 * The batch `resolve` answers for `manifestPath`: the one made from that path, else the one
 * batch at `service` with a document of `reference` (a moved or copied manifest), else why not.
 */
export function findResolveBatch(
  store: BatchStore,
  service: ConnectionAddress,
  manifestPath: string,
  reference: string,
): { readonly batch: BatchState } | { readonly problem: string } {
  const samePath = store.list().find((batch) => batch.source === manifestPath);
  if (samePath) return { batch: samePath };
  const candidates = store
    .list()
    .filter(
      (batch) =>
        (batch.connection === undefined || sameConnection(batch.connection, service)) &&
        batch.documents.some((document) => document.draft.externalReference === reference),
    );
  const [only] = candidates;
  if (!only) return { problem: `No batch of this data folder has ${reference}: send the manifest first.` };
  if (candidates.length > 1)
    return {
      problem: `${reference} is in ${candidates.length} batches of this data folder (${candidates
        .map((batch) => `"${batch.name}"`)
        .join(', ')}): run resolve with the manifest each was sent from.`,
    };
  return { batch: only };
}
