import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import type { DocumentDraft } from '../../shared/domain/batch';
import { normalizeFilename } from '../../shared/service/filename';
import type { BlobStore } from '../store/blob-store';
import type { BatchStore } from '../store/batch-store';
import type { BatchEvent } from './batch-events';
import { isLocked } from './batch-state';
import type { ManifestDocument } from './manifest';
import type { NotPdfKind } from './pdf-check';

/** A file that could not be added, and why, in plain words. */
export interface RejectedFile {
  readonly path: string;
  readonly code: string;
  readonly message: string;
  /** For an unreadable file: the system's error code (ENOENT…), to word the reason in any language. */
  readonly systemCode?: string;
  /** For a file that is not a PDF: what it is instead, when its first bytes say so. */
  readonly looksLike?: NotPdfKind;
}

export interface ManifestSync {
  readonly added: number;
  readonly updated: number;
  readonly unchanged: number;
  /** Documents already sent whose manifest rows changed since: the change is not applied. */
  readonly lockedChanges: readonly string[];
  readonly rejected: readonly RejectedFile[];
}

function sameDraft(a: DocumentDraft, b: DocumentDraft): boolean {
  return JSON.stringify({ ...a, id: '' }) === JSON.stringify({ ...b, id: '' });
}

/**
 * Brings a batch in line with a checked manifest: new documents are copied into the data
 * folder and added, unsent documents are updated, documents already sent are left as sent
 * (their changes reported). Matching is by external reference and document path, so running
 * the same manifest again never adds a document twice.
 */
export async function syncManifest(
  store: BatchStore,
  blobs: BlobStore,
  batchId: string,
  documents: readonly ManifestDocument[],
): Promise<ManifestSync> {
  const summary = {
    added: 0,
    updated: 0,
    unchanged: 0,
    lockedChanges: [] as string[],
    rejected: [] as RejectedFile[],
  };
  for (const manifestDocument of documents) {
    const batch = store.get(batchId);
    if (!batch) throw new Error(`unknown batch ${batchId}`);
    const existing = batch.documents.find(
      (document) => document.draft.externalReference === manifestDocument.externalReference,
    );
    if (existing && isLocked(existing)) {
      // Already with the service: what was sent stays as sent; a changed row is only reported.
      const sentRows = JSON.stringify([existing.draft.recipients, existing.draft.options.locale]);
      const manifestRows = JSON.stringify([manifestDocument.recipients, manifestDocument.options.locale]);
      if (sentRows === manifestRows) summary.unchanged += 1;
      else summary.lockedChanges.push(manifestDocument.externalReference);
      continue;
    }
    // Checked again as it is copied: a link may have been changed since the manifest was checked.
    const intake = await blobs.intake(manifestDocument.pdfPath, manifestDocument.folder);
    if (!intake.ok) {
      summary.rejected.push({ path: manifestDocument.pdfPath, ...intake.problem });
      continue;
    }
    const draft: DocumentDraft = {
      id: existing?.draft.id ?? randomUUID(),
      externalReference: manifestDocument.externalReference,
      pdf: {
        originalName: basename(manifestDocument.pdfPath),
        storedFilename: normalizeFilename(basename(manifestDocument.pdfPath)),
        sizeBytes: intake.pdf.sizeBytes,
        sha256: intake.pdf.sha256,
      },
      recipients: manifestDocument.recipients,
      extraParticipants: existing?.draft.extraParticipants ?? [],
      options: {
        ...manifestDocument.options,
        transactionType: manifestDocument.transactionType ?? manifestDocument.options.transactionType,
      },
    };
    let event: BatchEvent | undefined;
    if (!existing) {
      event = { type: 'document_added', document: draft };
      summary.added += 1;
    } else if (sameDraft(existing.draft, draft)) {
      summary.unchanged += 1;
    } else {
      event = { type: 'document_edited', document: draft };
      summary.updated += 1;
    }
    if (event) await store.record(batchId, [event]);
  }
  return summary;
}

/**
 * Adds PDFs picked by the user (dialog, folder or drop) to a batch: each is checked with the
 * service's rules and copied into the data folder; the batch's default recipients apply. A file
 * that fails a check is reported and nothing else is affected. Files from a folder (`within`)
 * must stay inside it once their links are resolved; files picked one by one may be anywhere.
 */
export async function addPdfDocuments(
  store: BatchStore,
  blobs: BlobStore,
  batchId: string,
  paths: readonly string[],
  within?: string,
): Promise<{ readonly added: readonly DocumentDraft[]; readonly rejected: readonly RejectedFile[] }> {
  const added: DocumentDraft[] = [];
  const rejected: RejectedFile[] = [];
  for (const path of paths) {
    const intake = await blobs.intake(path, within);
    if (!intake.ok) {
      rejected.push({ path, ...intake.problem });
      continue;
    }
    const originalName = basename(path);
    const draft: DocumentDraft = {
      id: randomUUID(),
      externalReference: originalName.replace(/\.pdf$/i, ''),
      pdf: {
        originalName,
        storedFilename: normalizeFilename(originalName),
        sizeBytes: intake.pdf.sizeBytes,
        sha256: intake.pdf.sha256,
      },
      recipients: [],
      extraParticipants: [],
      options: {},
    };
    await store.record(batchId, [{ type: 'document_added', document: draft }]);
    added.push(draft);
  }
  return { added, rejected };
}
