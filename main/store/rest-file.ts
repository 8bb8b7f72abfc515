/**
 * `rest.json`: what is kept of a batch at rest (main/domain/batch-rest.ts), written next to its
 * snapshot once the batch is at rest and folded, so that a start takes the batch's outline and
 * contract digests from this small file instead of parsing its whole snapshot (a year of batches:
 * 75 MiB of JSON). It is a cache, never the truth: it is used only while it describes the very
 * snapshot in the folder (its sequence number and checksum) and the journal is empty; otherwise
 * it is ignored and the batch is read whole, as before. A batch's folder holds it or not; an
 * earlier version ignores it.
 */
import { join } from 'node:path';
import type { Counts } from '../../shared/ipc/views';
import type { BatchOutline } from '../domain/batch-outline';
import type { RestingBatch } from '../domain/batch-rest';
import type { ContractDigest } from '../domain/contract-digest';
import { writeFileAtomic } from './durable-fs';
import { errorCode, type FileSystem } from './file-system';
import { decodeLine, encodeLine } from './journal-lines';
import { DOCUMENT_CLASSES } from '../../shared/domain/document-counts';

const REST_FILE = 'rest.json';
const SNAPSHOT_FILE = 'snapshot.json';
const JOURNAL_FILE = 'journal.log';
/** The shape of the file: another one (a later version's) is ignored. */
const VERSION = 1;
/** Bytes of a snapshot's head read to know which snapshot it is: its checksum and `{"seq":N,`. */
const SNAPSHOT_HEAD_BYTES = 64;
/**
 * A rest file says less than the snapshot it describes (an outline and a digest per document,
 * where the snapshot holds each document whole): one larger than its snapshot and this much is
 * not read, whatever put it there.
 */
const REST_FILE_MARGIN_BYTES = 64 * 1024;

/** The file's content (JSON has no NaN: an unknown time is null). */
interface RestRecord {
  readonly version: number;
  /** The checksum of the snapshot line it describes (its first 8 characters). */
  readonly snapshotChecksum: string;
  readonly outline: Omit<BatchOutline, 'completedAt' | 'endedAt'> & {
    readonly completedAt: readonly (number | null)[];
    readonly endedAt: readonly (number | null)[];
  };
  readonly contracts: readonly ContractDigest[];
}

/** The checksum and sequence number of the snapshot in `folder`, from its first bytes; undefined without one. */
async function snapshotHead(
  folder: string,
  fs: FileSystem,
): Promise<{ readonly checksum: string; readonly seq: number } | undefined> {
  const stream = fs.createReadStream(join(folder, SNAPSHOT_FILE), {
    highWaterMark: SNAPSHOT_HEAD_BYTES,
    end: SNAPSHOT_HEAD_BYTES - 1,
  });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const head = /^([0-9a-f]{8})\t\{"seq":(\d+),/.exec(chunk.toString('latin1'));
      return head?.[1] && head[2] ? { checksum: head[1], seq: Number(head[2]) } : undefined;
    }
    return undefined;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  } finally {
    stream.destroy();
  }
}

/** True when the batch's journal holds nothing (absent, or empty). */
async function journalEmpty(folder: string, fs: FileSystem): Promise<boolean> {
  try {
    return (await fs.stat(join(folder, JOURNAL_FILE))).size === 0;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return true;
    throw error;
  }
}

const toTimes = (times: readonly (number | null)[]) =>
  Float64Array.from(times, (time) => (time === null ? Number.NaN : time));
const fromTimes = (times: Float64Array) => Array.from(times, (time) => (Number.isFinite(time) ? time : null));

const isText = (value: unknown): value is string => typeof value === 'string';
const isOptionalText = (value: unknown) => value === undefined || typeof value === 'string';
const isTimes = (value: unknown): value is (number | null)[] =>
  Array.isArray(value) && value.every((time) => time === null || typeof time === 'number');

function isContract(value: unknown): value is ContractDigest {
  const contract = value as Partial<Record<keyof ContractDigest, unknown>> | null;
  return (
    typeof contract === 'object' &&
    contract !== null &&
    isText(contract.documentId) &&
    isText(contract.reference) &&
    isText(contract.sha256) &&
    isText(contract.fileName) &&
    isOptionalText(contract.requestId) &&
    isOptionalText(contract.newRequestId) &&
    typeof contract.generation === 'number' &&
    typeof contract.mayHold === 'boolean'
  );
}

/** True when `record` has the shape this version writes (a file changed by hand is read whole instead). */
function isRestRecord(record: unknown): record is RestRecord {
  const { version, snapshotChecksum, outline, contracts } = (record ?? {}) as Partial<
    Record<keyof RestRecord, unknown>
  >;
  const batch = (outline ?? {}) as Partial<Record<keyof RestRecord['outline'], unknown>>;
  const connection = (batch.connection ?? {}) as { baseUrl?: unknown; clientId?: unknown };
  const counts = (batch.counts ?? {}) as Partial<Record<keyof Counts, unknown>>;
  return (
    version === VERSION &&
    isText(snapshotChecksum) &&
    isText(batch.id) &&
    isText(batch.name) &&
    isText(batch.createdAt) &&
    isText(batch.updatedAt) &&
    isOptionalText(batch.source) &&
    // A batch at rest is bound to its connection.
    isText(connection.baseUrl) &&
    isText(connection.clientId) &&
    typeof batch.documentCount === 'number' &&
    DOCUMENT_CLASSES.every((key) => typeof counts[key] === 'number') &&
    isTimes(batch.completedAt) &&
    isTimes(batch.endedAt) &&
    Array.isArray(contracts) &&
    contracts.length === batch.documentCount &&
    contracts.every(isContract)
  );
}

/**
 * What is kept of the batch at rest in `folder`, with the sequence number its snapshot covers;
 * undefined when the folder has no rest file, or one that does not describe its snapshot as it is
 * with an empty journal (the batch is then read whole).
 */
export async function readRestFile(
  folder: string,
  fs: FileSystem,
): Promise<{ readonly resting: RestingBatch; readonly snapshotSeq: number } | undefined> {
  let text: string;
  try {
    // Looked at before it is read: anything else in its place (a FIFO would make a read wait for
    // a writer for ever) is passed over, and left there.
    const rest = await fs.stat(join(folder, REST_FILE));
    const snapshot = await fs.stat(join(folder, SNAPSHOT_FILE));
    if (!rest.isFile() || !snapshot.isFile() || rest.size > snapshot.size + REST_FILE_MARGIN_BYTES)
      return undefined;
    text = await fs.readFile(join(folder, REST_FILE), 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  const decoded = decodeLine<unknown>(text.endsWith('\n') ? text.slice(0, -1) : text);
  const record = decoded?.entry.event;
  if (!decoded || !isRestRecord(record)) return undefined;
  const head = await snapshotHead(folder, fs);
  if (head?.seq !== decoded.entry.seq || head.checksum !== record.snapshotChecksum) return undefined;
  if (!(await journalEmpty(folder, fs))) return undefined;
  const { completedAt, endedAt, ...outline } = record.outline;
  return {
    resting: {
      outline: { ...outline, completedAt: toTimes(completedAt), endedAt: toTimes(endedAt) },
      contracts: record.contracts,
    },
    snapshotSeq: decoded.entry.seq,
  };
}

/**
 * Writes the rest file of the batch in `folder`, at rest and folded into its snapshot of
 * `snapshotSeq` (atomically: a crash leaves the earlier file or none). Answers false, writing
 * nothing, when the snapshot there is not that one.
 */
export async function writeRestFile(
  folder: string,
  fs: FileSystem,
  resting: RestingBatch,
  snapshotSeq: number,
): Promise<boolean> {
  const head = await snapshotHead(folder, fs);
  if (head?.seq !== snapshotSeq) return false;
  const { completedAt, endedAt, ...outline } = resting.outline;
  const record: RestRecord = {
    version: VERSION,
    snapshotChecksum: head.checksum,
    outline: { ...outline, completedAt: fromTimes(completedAt), endedAt: fromTimes(endedAt) },
    contracts: resting.contracts,
  };
  await writeFileAtomic(
    join(folder, REST_FILE),
    encodeLine({ seq: snapshotSeq, at: new Date().toISOString(), event: record }),
    fs,
  );
  return true;
}
