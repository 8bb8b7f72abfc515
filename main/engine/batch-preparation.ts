import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import type { DocumentDraft } from '../../shared/domain/batch';
import type { NotAddedCode } from '../../shared/ipc/error-codes';
import type { ManifestImport } from '../../shared/ipc/views';
import { normalizeFilename } from '../../shared/service/filename';
import type { BlobStore } from '../store/blob-store';
import type { BatchStore } from '../store/batch-store';
import type { BatchEvent } from '../domain/batch-events';
import { isLocked, type DocumentState } from '../domain/batch-state';
import { englishWords, type Translator } from '../../shared/i18n/translator';
import { pdfProblemMessage, type CheckedPdf } from '../files/pdf-check';
import type { ManifestDocument } from '../manifest/manifest';
import type { NotPdfKind } from '../files/pdf-check';

/** A file that could not be added, and why, in plain words. */
export interface RejectedFile {
  readonly path: string;
  readonly code: NotAddedCode;
  readonly message: string;
  /** For an unreadable file: the system's error code (ENOENT…), to word the reason in any language. */
  readonly systemCode?: string;
  /** For a file that is not a PDF: what it is instead, when its first bytes say so. */
  readonly looksLike?: NotPdfKind;
  /** For `already_in_batch`: the name of the document of the batch that is this very contract. */
  readonly sameAs?: string;
}

/**
 * Why a file was not added, in `t`'s language (English unless given): a PDF problem by its code,
 * the same contract by the name it has in the batch. The one wording of a picked file and of a
 * manifest's.
 */
export function notAddedWords(
  file: Pick<RejectedFile, 'path' | 'code' | 'systemCode' | 'looksLike' | 'sameAs'>,
  t: Translator['t'] = englishWords(),
): string {
  if (file.code === 'already_in_batch')
    return t('documents.alreadyInBatch', { file: basename(file.path), sameAs: file.sameAs ?? '' });
  return pdfProblemMessage(
    {
      code: file.code,
      ...(file.systemCode ? { systemCode: file.systemCode } : {}),
      ...(file.looksLike ? { looksLike: file.looksLike } : {}),
    },
    t,
  );
}

function sameDraft(a: DocumentDraft, b: DocumentDraft): boolean {
  return JSON.stringify({ ...a, id: '' }) === JSON.stringify({ ...b, id: '' });
}

/** What a manifest document becomes: an event to record (or none), and how it is counted. */
type ManifestOutcome =
  | { readonly kind: 'added' | 'updated'; readonly event: BatchEvent; readonly draft: DocumentDraft }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'lockedChange' };

/** Already with the service: what was sent stays as sent; a changed row is only reported. */
function lockedOutcome(existing: DocumentState, manifestDocument: ManifestDocument): ManifestOutcome {
  const sentRows = JSON.stringify([existing.draft.recipients, existing.draft.options.locale]);
  const manifestRows = JSON.stringify([manifestDocument.recipients, manifestDocument.options.locale]);
  return sentRows === manifestRows ? { kind: 'unchanged' } : { kind: 'lockedChange' };
}

/** What a manifest document whose PDF was taken in changes in a batch where it is `existing` (not sent). */
function draftOutcome(
  existing: DocumentDraft | undefined,
  manifestDocument: ManifestDocument,
  pdf: CheckedPdf,
): ManifestOutcome {
  const draft: DocumentDraft = {
    id: existing?.id ?? randomUUID(),
    externalReference: manifestDocument.externalReference,
    pdf: {
      originalName: basename(manifestDocument.pdfPath),
      storedFilename: normalizeFilename(basename(manifestDocument.pdfPath)),
      sizeBytes: pdf.sizeBytes,
      sha256: pdf.sha256,
    },
    recipients: manifestDocument.recipients,
    extraParticipants: existing?.extraParticipants ?? [],
    options: {
      ...manifestDocument.options,
      transactionType: manifestDocument.transactionType ?? manifestDocument.options.transactionType,
    },
  };
  if (!existing) return { kind: 'added', event: { type: 'document_added', document: draft }, draft };
  if (sameDraft(existing, draft)) return { kind: 'unchanged' };
  return { kind: 'updated', event: { type: 'document_edited', document: draft }, draft };
}

/** The batch's documents by external reference, as it is now (read back if it is at rest). */
async function documentsByReference(store: BatchStore, batchId: string): Promise<Map<string, DocumentState>> {
  const batch = await store.open(batchId);
  if (!batch) throw new Error(`unknown batch ${batchId}`);
  return new Map(batch.documents.map((document) => [document.draft.externalReference, document]));
}

/**
 * Brings a batch in line with a checked manifest: new documents are copied into the data
 * folder and added, unsent documents are updated, documents already sent are left as sent
 * (their changes reported). Matching is by external reference and document path, so running
 * the same manifest again never adds a document twice. Copies are made durable a group at a
 * time (`BlobStore.intakeMany`) and each group's changes are recorded in one journal entry once
 * its copies are durable: a power cut never leaves a document without its copy.
 */
export async function importManifest(
  store: BatchStore,
  blobs: BlobStore,
  batchId: string,
  documents: readonly ManifestDocument[],
  t: Translator['t'] = englishWords(),
): Promise<ManifestImport> {
  const summary = {
    added: 0,
    updated: 0,
    unchanged: 0,
    lockedChanges: [] as string[],
    rejected: [] as ManifestImport['rejected'][number][],
  };
  const count = (outcome: ManifestOutcome, manifestDocument: ManifestDocument): void => {
    if (outcome.kind === 'lockedChange') summary.lockedChanges.push(manifestDocument.externalReference);
    else summary[outcome.kind] += 1;
  };
  // Documents already sent are only reported: their PDFs are not taken in again.
  const toTakeIn: ManifestDocument[] = [];
  const before = await documentsByReference(store, batchId);
  for (const manifestDocument of documents) {
    const existing = before.get(manifestDocument.externalReference);
    if (existing && isLocked(existing)) count(lockedOutcome(existing, manifestDocument), manifestDocument);
    else toTakeIn.push(manifestDocument);
  }
  // Checked again as they are copied: a link may have been changed since the manifest was checked.
  const sources = toTakeIn.map((document) => ({ path: document.pdfPath, within: document.folder }));
  for await (const group of blobs.intakeMany(sources)) {
    // Decided against the batch as it is now: a document may have been sent while its PDF was copied.
    const current = await documentsByReference(store, batchId);
    // A later document of the group with the same reference sees an earlier one, as the journal will.
    const decided = new Map<string, DocumentDraft>();
    const events: BatchEvent[] = [];
    group.results.forEach((intake, offset) => {
      const manifestDocument = toTakeIn[group.first + offset]!;
      if (!intake.ok) {
        const file = { path: manifestDocument.pdfPath, ...intake.error };
        summary.rejected.push({ path: file.path, code: file.code, message: notAddedWords(file, t) });
        return;
      }
      const reference = manifestDocument.externalReference;
      const existing = current.get(reference);
      const outcome =
        existing && isLocked(existing)
          ? lockedOutcome(existing, manifestDocument)
          : draftOutcome(decided.get(reference) ?? existing?.draft, manifestDocument, intake.value);
      count(outcome, manifestDocument);
      if (outcome.kind === 'added' || outcome.kind === 'updated') {
        events.push(outcome.event);
        decided.set(reference, outcome.draft);
      }
    });
    if (events.length > 0) await store.record(batchId, events);
  }
  return summary;
}

/**
 * Adds PDFs picked by the user (dialog, folder or drop) to a batch: each is checked with the
 * service's rules and copied into the data folder; the batch's default recipients apply. A file
 * that fails a check is reported and nothing else is affected. Files from a folder (`within`)
 * must stay inside it once their links are resolved; files picked one by one may be anywhere.
 * Copies are made durable a group at a time (`BlobStore.intakeMany`) and each group's documents
 * are recorded in one journal entry once their copies are durable.
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
  const sources = paths.map((path) => ({ path, ...(within === undefined ? {} : { within }) }));
  // The batch's contracts (reference and content): the same file named twice (`offer.pdf`,
  // `./offer.pdf`), or the same content under the same reference, is one document.
  const contractKey = (reference: string, sha256: string) => `${sha256} ${reference}`;
  const batch = await store.open(batchId);
  const contracts = new Map(
    (batch?.documents ?? []).map((document) => [
      contractKey(document.draft.externalReference, document.draft.pdf.sha256),
      document.draft.pdf.originalName,
    ]),
  );
  for await (const group of blobs.intakeMany(sources)) {
    const events: BatchEvent[] = [];
    group.results.forEach((intake, offset) => {
      const path = paths[group.first + offset]!;
      if (!intake.ok) {
        rejected.push({ path, ...intake.error });
        return;
      }
      const originalName = basename(path);
      const externalReference = originalName.replace(/\.pdf$/i, '');
      const key = contractKey(externalReference, intake.value.sha256);
      const sameAs = contracts.get(key);
      if (sameAs !== undefined) {
        const file = { path, code: 'already_in_batch', sameAs } as const;
        rejected.push({ ...file, message: notAddedWords(file) });
        return;
      }
      contracts.set(key, originalName);
      const document: DocumentDraft = {
        id: randomUUID(),
        externalReference,
        pdf: {
          originalName,
          storedFilename: normalizeFilename(originalName),
          sizeBytes: intake.value.sizeBytes,
          sha256: intake.value.sha256,
        },
        recipients: [],
        extraParticipants: [],
        options: {},
      };
      events.push({ type: 'document_added', document });
      added.push(document);
    });
    if (events.length > 0) await store.record(batchId, events);
  }
  return { added, rejected };
}
