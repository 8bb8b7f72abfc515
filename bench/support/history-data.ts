/**
 * A year of history in a data folder, made through the app's own store: every batch is created
 * and changed with `BatchStore.create`/`record` (so snapshot.json and journal.log are exactly
 * what the app writes, compacted by the app's own policy), every PDF copy lands where
 * `BlobStore.pathOf` puts it, byte for byte the PDF the person picked.
 *
 * The events of each document follow the life the send engine and the poller give it (see
 * main/engine/send-engine.ts, main/tracking/status-poller.ts): added to its batch, queued, uploaded,
 * its creation key stored, the attempt started, the request created, its extra participant
 * added, prepared, then status reads as its signer opens and signs it (or it fails, or its
 * request is gone at the service). One `record` per step of a document, eight documents at a
 * time, as the engine with its default concurrency does; status reads come in later rounds,
 * as the poller finds them, so a batch's journal interleaves like a real one.
 *
 * The folder is generated, not lived: its durability is irrelevant, so syncs are skipped (the
 * bytes written are the same). Timestamps of the journal are today's (the journal stamps its
 * own clock); the dates in the service's answers spread over the year.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BatchDefaults, DocumentDraft, TrackedStatus } from '../../shared/domain/batch';
import type { Participant } from '../../shared/service/wire';
import type { BatchEvent } from '../../main/domain/batch-events';
import { buildCreateBody } from '../../main/domain/create-body';
import { BatchStore } from '../../main/store/batch-store';
import { BlobStore } from '../../main/store/blob-store';
import { nodeFileSystem, type FileSystem, type OpenFile } from '../../main/store/file-system';
import { createSeededRandom } from '../../simulator/seeded-random';
import { makePdfBytes } from '../../test/support/pdf-files';
import { serviceErrorCode } from '../../shared/service/error-codes';

/** How the year looks. */
export interface HistoryShape {
  readonly batches: number;
  readonly documents: number;
  /** The last batches: sent these last weeks, many documents still waiting for signatures. */
  readonly openBatches: number;
  /** The very last batches: prepared, not sent yet. */
  readonly draftBatches: number;
}

export const YEAR_OF_HISTORY: HistoryShape = {
  batches: 50,
  documents: 50_000,
  openBatches: 4,
  draftBatches: 2,
};

/** The service the year's batches were sent to (never contacted: the benchmark saves no connection). */
const OFFICE_SERVICE = 'https://signing.example.com';

export interface GeneratedHistory {
  readonly batches: number;
  readonly documents: number;
  readonly events: number;
  readonly blobs: number;
}

/** The disk without syncs: a generated folder has nothing to lose to a power cut. */
const unsyncedFileSystem: FileSystem = {
  mkdir: (path, options) => nodeFileSystem.mkdir(path, options),
  readFile: ((path: string, encoding?: 'utf8') =>
    encoding === undefined
      ? nodeFileSystem.readFile(path)
      : nodeFileSystem.readFile(path, encoding)) as FileSystem['readFile'],
  readdir: (path) => nodeFileSystem.readdir(path),
  stat: (path) => nodeFileSystem.stat(path),
  async open(path, flags, mode) {
    const file = await nodeFileSystem.open(path, flags, mode);
    const unsynced: OpenFile = {
      write: (data) => file.write(data),
      writeFile: (data) => file.writeFile(data),
      datasync: () => Promise.resolve(),
      sync: () => Promise.resolve(),
      truncate: (length) => file.truncate(length),
      stat: () => file.stat(),
      close: () => file.close(),
    };
    return unsynced;
  },
  rename: (from, to) => nodeFileSystem.rename(from, to),
  rm: (path, options) => nodeFileSystem.rm(path, options),
  syncDirectory: () => Promise.resolve(),
  createReadStream: (path, options) => nodeFileSystem.createReadStream(path, options),
};

/** Sizes of the batches: from a few dozen documents to a few thousand, summing to `total`. */
export function batchSizes(batches: number, total: number): number[] {
  const weights = Array.from({ length: batches }, (_, index) => 1 + ((index * 37) % 11) ** 1.5);
  const sum = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((weight) => Math.max(20, Math.round((weight / sum) * total)));
  const last = sizes.length - 1;
  sizes[last] = (sizes[last] ?? 0) + total - sizes.reduce((a, b) => a + b, 0);
  return sizes;
}

function person(type: Participant['participant_type'], role: string, index: number): Participant {
  const name = `${type === 'signer' ? 'Employee' : 'Manager'} ${index}`;
  return {
    participant_type: type,
    role,
    name,
    email: `${type}.${index}@example.com`,
    ...(type === 'signer' ? { signing_order: 1 } : {}),
  };
}

type Fate = 'completed' | 'waiting' | 'opened' | 'gone' | 'failed' | 'draft';

/** What became of a document, by how old its batch is. */
function fateOf(kind: 'finished' | 'open' | 'draft', roll: number): Fate {
  if (kind === 'draft') return 'draft';
  if (kind === 'open')
    return roll < 0.4 ? 'completed' : roll < 0.7 ? 'opened' : roll < 0.95 ? 'waiting' : 'failed';
  // A year on, nothing waits any more: what was never signed expired at the service (gone).
  return roll < 0.9 ? 'completed' : roll < 0.97 ? 'gone' : 'failed';
}

function status(
  status: string,
  documentStatus: string,
  day: number,
  opened: boolean,
  finalized: boolean,
): TrackedStatus {
  const at = (offsetDays: number) =>
    new Date(Date.UTC(2025, 10, 1) + (day + offsetDays) * 86_400_000).toISOString();
  return {
    status,
    documentStatus,
    evidenceReady: finalized,
    preparedAt: at(0),
    openedAt: opened ? at(1) : undefined,
    finalizedAt: finalized ? at(2) : undefined,
    readAt: at(finalized ? 2 : opened ? 1 : 0),
    final: finalized,
  };
}

/** The PDF bytes of document `index`: one real PDF, told apart by a comment after its end. */
function pdfOf(template: Uint8Array, reference: string): Buffer {
  return Buffer.concat([template, Buffer.from(`\n% ${reference}\n`, 'latin1')]);
}

/** Records `steps` (each a list of events of one document) the way the engine does: eight at a time. */
async function recordSteps(store: BatchStore, batchId: string, steps: BatchEvent[][]): Promise<void> {
  for (let start = 0; start < steps.length; start += 8)
    await Promise.all(steps.slice(start, start + 8).map((events) => store.record(batchId, events)));
}

/**
 * Fills `dataDir` (empty or absent) with `shape`'s history. Reports progress per batch through
 * `onBatch`.
 */
export async function generateHistory(
  dataDir: string,
  shape: HistoryShape = YEAR_OF_HISTORY,
  onBatch: (index: number, documents: number) => void = () => undefined,
): Promise<GeneratedHistory> {
  const store = await BatchStore.open(dataDir, { fs: unsyncedFileSystem });
  const blobs = new BlobStore(dataDir, { fs: unsyncedFileSystem });
  const template = await makePdfBytes('Employment contract');
  // Seeded: the same folder every run.
  const roll = createSeededRandom(2026);
  const sizes = batchSizes(shape.batches, shape.documents);
  let events = 0;
  let reference = 0;
  const record = async (batchId: string, steps: BatchEvent[][]) => {
    events += steps.reduce((sum, step) => sum + step.length, 0);
    await recordSteps(store, batchId, steps);
  };
  try {
    for (const [batchIndex, size] of sizes.entries()) {
      const kind =
        batchIndex >= shape.batches - shape.draftBatches
          ? 'draft'
          : batchIndex >= shape.batches - shape.draftBatches - shape.openBatches
            ? 'open'
            : 'finished';
      const day = Math.floor((batchIndex * 365) / shape.batches);
      const defaults: BatchDefaults = {
        defaultRecipients: [person('observer', 'HR', batchIndex)],
        locale: 'en',
      };
      const batch = await store.create(`Contracts ${String(batchIndex + 1).padStart(2, '0')}`, defaults);
      events += 1;
      const drafts: DocumentDraft[] = [];
      const fates: Fate[] = [];
      for (let index = 0; index < size; index += 1) {
        reference += 1;
        const externalReference = `HR-${String(reference).padStart(6, '0')}`;
        const bytes = pdfOf(template, externalReference);
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        const path = blobs.pathOf(sha256);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, bytes);
        drafts.push({
          id: `doc-${reference}`,
          externalReference,
          pdf: {
            originalName: `${externalReference}.pdf`,
            storedFilename: `${externalReference}.pdf`,
            sizeBytes: bytes.length,
            sha256,
          },
          recipients: [person('signer', 'Employee', reference)],
          // A third of the contracts has a manager who signs after creation (spec §4.5).
          extraParticipants: reference % 3 === 0 ? [person('observer', 'Manager', reference)] : [],
          options: {},
        });
        fates.push(fateOf(kind, roll()));
      }
      // The import: a manifest's rows added in a few records.
      for (let start = 0; start < drafts.length; start += 500) {
        const chunk = drafts.slice(start, start + 500);
        events += chunk.length;
        await store.record(
          batch.id,
          chunk.map((document) => ({ type: 'document_added', document })),
        );
      }
      if (kind !== 'draft') {
        // The first send binds the batch to its connection (the office's saved one).
        await record(batch.id, [
          [{ type: 'connection_bound', baseUrl: OFFICE_SERVICE, clientId: 'office-desk' }],
        ]);
        await record(batch.id, [[{ type: 'send_requested', documentIds: drafts.map((draft) => draft.id) }]]);
        // Sending: upload, creation key, attempt, request, participants, preparation.
        const sending: BatchEvent[][] = [];
        for (const [index, draft] of drafts.entries()) {
          const documentId = draft.id;
          const uploadId = `upl_${draft.pdf.sha256.slice(0, 24)}`;
          sending.push([
            {
              type: 'upload_completed',
              documentId,
              uploadId,
              filename: draft.pdf.storedFilename,
              sha256: draft.pdf.sha256,
              sizeBytes: draft.pdf.sizeBytes,
              expiresAt: Date.UTC(2025, 10, 2) + day * 86_400_000,
            },
          ]);
          if (fates[index] === 'failed') {
            sending.push([
              {
                type: 'item_failed',
                documentId,
                error: {
                  code: serviceErrorCode('validation_failed'),
                  message: 'The service refused the request: recipients[0].email is not valid.',
                  retryable: false,
                  at: new Date().toISOString(),
                },
              },
            ]);
            continue;
          }
          sending.push([
            {
              type: 'create_attempted',
              documentId,
              idempotencyKey: `key-${documentId}`,
              uploadId,
              body: buildCreateBody(defaults, draft, uploadId),
              attemptsMarked: true,
            },
          ]);
          sending.push([{ type: 'create_attempt_started', documentId }]);
          sending.push([
            { type: 'request_created', documentId, requestId: `req_${documentId}`, replayed: false },
          ]);
          for (const [participant] of draft.extraParticipants.entries()) {
            sending.push([{ type: 'participant_attempted', documentId, index: participant }]);
            sending.push([
              {
                type: 'participant_added',
                documentId,
                index: participant,
                participantId: `par_${documentId}`,
              },
            ]);
          }
          sending.push([
            {
              type: 'request_prepared',
              documentId,
              revision: 1,
              sha256: draft.pdf.sha256,
              alreadyPrepared: false,
            },
          ]);
        }
        await record(batch.id, sending);
        // Tracking: the poller's reads, one round per change the signers made.
        const reads = (pick: (fate: Fate) => BatchEvent | undefined): BatchEvent[][] =>
          fates.flatMap((fate, index) => {
            const event = pick(fate);
            return event ? [[{ ...event, documentId: drafts[index]?.id ?? '' } as BatchEvent]] : [];
          });
        await record(
          batch.id,
          reads((fate) =>
            fate === 'failed'
              ? undefined
              : {
                  type: 'status_read',
                  documentId: '',
                  status: status('prepared', 'ready', day, false, false),
                },
          ),
        );
        await record(
          batch.id,
          reads((fate) =>
            fate === 'completed' || fate === 'opened' || fate === 'gone'
              ? {
                  type: 'status_read',
                  documentId: '',
                  status: status('in_progress', 'ready', day, true, false),
                }
              : undefined,
          ),
        );
        await record(
          batch.id,
          reads((fate) =>
            fate === 'completed'
              ? {
                  type: 'status_read',
                  documentId: '',
                  status: status('completed', 'finalized', day, true, true),
                }
              : fate === 'gone'
                ? { type: 'request_gone', documentId: '' }
                : undefined,
          ),
        );
      }
      onBatch(batchIndex, size);
    }
  } finally {
    await store.close();
  }
  return { batches: sizes.length, documents: shape.documents, events, blobs: shape.documents };
}
