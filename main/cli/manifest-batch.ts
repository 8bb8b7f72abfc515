/**
 * Which batch `send MANIFEST` continues. A batch is found by its manifest's path, or, when the
 * folder was moved or renamed, by its contracts: the data folder already holds requests for the
 * manifest's references at this service. A copy of a folder whose original is still there is
 * never sent again by itself: the person says whether to continue that batch from here
 * (`--continue-batch`) or to send anew on purpose (`--send-new --confirm`).
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { sameConnection, type ConnectionAddress } from '../domain/batch-connection';
import type { BatchState } from '../domain/batch-state';
import { ContractRegistry } from '../engine/contract-registry';
import { importManifest } from '../engine/batch-preparation';
import type { ManifestDocument } from '../manifest/manifest';
import type { ManifestImport } from '../../shared/ipc/views';
import type { Desk } from '../app/desk-core';
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

/** The batch made from `manifestPath` (read back if it is at rest), if any. */
async function batchSentFrom(store: BatchStore, manifestPath: string): Promise<BatchState | undefined> {
  const outline = store.outlines().find((batch) => batch.source === manifestPath);
  return outline && store.open(outline.id);
}

/**
 * The batch `send` continues for `manifestPath` at `service`. Nothing is written here: the
 * caller records the new path of a moved batch.
 */
export async function findManifestBatch(
  store: BatchStore,
  service: ConnectionAddress,
  manifestPath: string,
  documents: readonly Pick<ManifestDocument, 'externalReference' | 'pdf'>[],
): Promise<ManifestBatch> {
  const samePath = await batchSentFrom(store, manifestPath);
  if (samePath) return { kind: 'same-path', batch: samePath };
  const registry = ContractRegistry.of(store);
  const holding = new Map<string, { batch: BatchState; references: string[]; sameContracts: number }>();
  for (const document of documents) {
    const holders = registry.holdersOf(service, document.externalReference, { batchId: '', documentId: '' });
    for (const holder of holders) {
      // Each holding batch is read once (a batch at rest is read back to be named), its
      // documents compared by their digests: the store keeps only the last few read in memory.
      let entry = holding.get(holder.batchId);
      if (!entry) {
        const batch = await store.open(holder.batchId);
        if (!batch) continue;
        entry = { batch, references: [], sameContracts: 0 };
        holding.set(holder.batchId, entry);
      }
      if (!entry.references.includes(document.externalReference)) {
        entry.references.push(document.externalReference);
        const held = store.contractOf(holder.batchId, holder.documentId);
        if (held && document.pdf && held.sha256 === document.pdf.sha256) entry.sameContracts += 1;
      }
    }
  }
  // Oldest first, as the batches were made: the same order in every message, whatever order
  // the data folder lists them in.
  const holders = [...holding.values()].sort((a, b) => a.batch.createdAt.localeCompare(b.batch.createdAt));
  const [only] = holders;
  if (!only) return { kind: 'new' };
  // Moved: its manifest is gone from where it was, and what the batch holds of this manifest is
  // the very same contracts (a new manifest reusing one reference of a deleted folder is not).
  if (
    holders.length === 1 &&
    only.sameContracts === only.references.length &&
    only.batch.source !== undefined &&
    !existsSync(only.batch.source)
  )
    return { kind: 'moved', batch: only.batch, from: only.batch.source };
  return { kind: 'held', holders };
}

/**
 * A batch as a person tells it apart: its name and where it was last sent from (copies of one
 * folder all make batches named "manifest.csv").
 */
export function batchLabel(batch: Pick<BatchState, 'name' | 'source'>): string {
  return batch.source ? `"${batch.name}" (sent from ${batch.source})` : `"${batch.name}" (made in the app)`;
}

/**
 * The batch `resolve` answers for `manifestPath`: the one made from that path, else the one
 * batch at `service` with a document of `reference` (a moved or copied manifest), else why not.
 */
export async function findResolveBatch(
  store: BatchStore,
  service: ConnectionAddress,
  manifestPath: string,
  reference: string,
): Promise<{ readonly batch: BatchState } | { readonly problem: string }> {
  const samePath = await batchSentFrom(store, manifestPath);
  if (samePath) return { batch: samePath };
  // From the batches' outlines and contract digests: none is read to be looked at.
  const candidates = store
    .outlines()
    .filter(
      (batch) =>
        (batch.connection === undefined || sameConnection(batch.connection, service)) &&
        store.contracts(batch.id).some((contract) => contract.reference === reference),
    );
  const [only] = candidates;
  if (!only) return { problem: `No batch of this data folder has ${reference}: send the manifest first.` };
  if (candidates.length > 1)
    return {
      problem: `${reference} is in ${candidates.length} batches of this data folder (${candidates
        .map(batchLabel)
        .join(', ')}): run resolve with the manifest each was sent from.`,
    };
  const batch = await store.open(only.id);
  return batch
    ? { batch }
    : { problem: `No batch of this data folder has ${reference}: send the manifest first.` };
}

/** What `send` does with a manifest, once it knows which batch (if any) holds its contracts. */
export type ManifestTarget =
  /** Continue this batch; `from` is set when it followed another path until now (moved, or continued from a copy). */
  | {
      readonly kind: 'continue';
      readonly batch: BatchState;
      readonly from?: string | undefined;
      readonly moved: boolean;
    }
  /** A new batch; `anew` lists the references other batches hold that the person chose to send again on purpose. */
  | { readonly kind: 'new'; readonly anew: readonly string[] }
  /** Refused: copies of contracts other batches hold, and the person did not say what to do. */
  | { readonly kind: 'held'; readonly holders: readonly HoldingBatch[] }
  /** Refused: `--continue-batch` with the contracts in several batches. */
  | { readonly kind: 'several'; readonly holders: readonly HoldingBatch[] };

/**
 * What `send` does for `found` with the person's options (`--continue-batch`, `--send-new`):
 * a moved batch is continued; a copy only as asked. Decides only; nothing is written.
 */
export function manifestTarget(
  found: ManifestBatch,
  options: { readonly continueBatch: boolean; readonly sendNew: boolean },
): ManifestTarget {
  switch (found.kind) {
    case 'same-path':
      return { kind: 'continue', batch: found.batch, moved: false };
    case 'moved':
      return { kind: 'continue', batch: found.batch, from: found.from, moved: true };
    case 'new':
      return { kind: 'new', anew: [] };
    case 'held': {
      const [only] = found.holders;
      if (options.continueBatch)
        return found.holders.length === 1 && only
          ? { kind: 'continue', batch: only.batch, from: only.batch.source, moved: false }
          : { kind: 'several', holders: found.holders };
      if (options.sendNew) return { kind: 'new', anew: found.holders.flatMap((holder) => holder.references) };
      return { kind: 'held', holders: found.holders };
    }
  }
}

/**
 * Brings the data folder in line with `target` for a checked manifest, once its connection is
 * settled: the batch continued records its new path, or a new batch is made and bound to
 * `service`; the manifest's documents are taken in (importManifest); the contracts sent anew on
 * purpose are marked so. Returns the batch and what the import found.
 */
export async function takeManifestIn(
  desk: Pick<Desk, 'store' | 'blobs' | 'engine'>,
  target: Extract<ManifestTarget, { kind: 'continue' | 'new' }>,
  service: ConnectionAddress,
  manifestPath: string,
  documents: readonly ManifestDocument[],
): Promise<{ readonly batch: BatchState; readonly imported: ManifestImport }> {
  let batch: BatchState;
  if (target.kind === 'continue') {
    batch = target.batch;
    // A moved folder, or a copy the person chose to continue from: it follows this manifest now.
    if (batch.source !== manifestPath)
      batch = await desk.store.record(batch.id, [{ type: 'batch_source_changed', source: manifestPath }]);
  } else {
    batch = await desk.store.create(basename(manifestPath), { defaultRecipients: [] }, manifestPath);
    await desk.store.bindConnection(batch.id, service);
  }
  const imported = await importManifest(desk.store, desk.blobs, batch.id, documents);
  if (target.kind === 'new' && target.anew.length > 0) {
    // On purpose, confirmed: each contract another batch holds goes again, under a key of its own.
    for (const document of desk.store.get(batch.id)?.documents ?? [])
      if (target.anew.includes(document.draft.externalReference))
        await desk.engine.acceptReferenceReuse(batch.id, document.draft.id);
  }
  return { batch: desk.store.get(batch.id) ?? batch, imported };
}
