import { crc32 } from 'node:zlib';
import { err, ok, type Result } from '../../shared/base/result';

/**
 * The journal's line format, and how a journal's text is read back after a crash.
 *
 * A line is the CRC-32 of its JSON (8 hex digits), a tab, the JSON, a newline. Each `append` is
 * one record: its entries are kept all together or not at all. An entry's JSON holds:
 * - `seq`, `at`, `event`: the entry;
 * - `d`: the last sequence number that was durable (fdatasync'd, acknowledged) when the line was
 *   written: a line that survives proves every entry up to `d` was acknowledged;
 * - `c`: the sequence number of the last entry of its record, when that is not this entry.
 * Lines written by earlier versions have neither `d` nor `c`: each is a record of its own, and
 * says nothing of what was durable.
 *
 * At a power cut a disk writes the pages of an unsynced append in any order: the last record may
 * keep later bytes and lose earlier ones (a page that never reached the disk reads as zeros
 * beyond what was durable), or a prefix of its bytes. `readJournalText` tells such a record,
 * never acknowledged, from damage to one that was.
 */

export interface JournalEntry<E> {
  readonly seq: number;
  readonly at: string;
  readonly event: E;
}

/** A problem found while loading: the folder, file and line, and what was wrong. */
export interface JournalDamage {
  readonly file: string;
  readonly line: number | undefined;
  readonly problem: string;
  /** True when the damage is the last record, torn by a crash while it was written: it was never acknowledged. */
  readonly tornTail: boolean;
}

/** The entries of a journal's text, and the torn last record set aside. */
export interface JournalEntries<E> {
  readonly entries: readonly JournalEntry<E>[];
  readonly recovered: readonly JournalDamage[];
}

/** A journal's text as read: its entries, or the damage that stops it loading. */
export type JournalText<E> = Result<JournalEntries<E>, JournalDamage>;

/** One record as the writer holds it before it is written: its events already in JSON. */
export interface PendingRecord {
  readonly firstSeq: number;
  readonly at: string;
  readonly events: readonly string[];
}

interface DecodedLine<E> {
  readonly entry: JournalEntry<E>;
  /** `d`; undefined for a line of an earlier version. */
  readonly durableSeq: number | undefined;
  /** The last entry of its record (`c`, else its own). */
  readonly recordEnd: number;
}

const HALF_WRITTEN_LINE = 'a half-written last line (the app stopped while writing it)';
const HALF_WRITTEN_RECORD = 'a half-written last record (the app stopped while writing it)';
const CHECKSUM_FAILS = 'the line fails its checksum';

function checksum(text: string): string {
  return crc32(Buffer.from(text, 'utf8')).toString(16).padStart(8, '0');
}

/** Encodes an object as one line: checksum, tab, JSON, newline (a snapshot, or an entry as earlier versions wrote it). */
export function encodeLine(entry: JournalEntry<unknown>): string {
  const json = JSON.stringify(entry);
  return `${checksum(json)}\t${json}\n`;
}

/** The lines of one record, written when entries up to `durableSeq` are durable. */
export function encodeRecord(record: PendingRecord, durableSeq: number): string {
  const lastSeq = record.firstSeq + record.events.length - 1;
  const at = JSON.stringify(record.at);
  let lines = '';
  for (const [index, event] of record.events.entries()) {
    const seq = record.firstSeq + index;
    const end = seq === lastSeq ? '' : `,"c":${lastSeq}`;
    const json = `{"seq":${seq},"at":${at},"d":${durableSeq}${end},"event":${event}}`;
    lines += `${checksum(json)}\t${json}\n`;
  }
  return lines;
}

/**
 * Entries rewritten into a fresh journal that becomes `journal.log` only once durable (each a
 * record of its own: a torn one was set aside before): each says every entry before it is durable.
 */
export function encodeDurableEntries(entries: readonly JournalEntry<unknown>[]): string {
  return entries
    .map((entry) =>
      encodeRecord(
        { firstSeq: entry.seq, at: entry.at, events: [JSON.stringify(entry.event)] },
        entry.seq - 1,
      ),
    )
    .join('');
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** The entry of a line, or undefined when its checksum or its shape is wrong. */
export function decodeLine<E>(line: string): DecodedLine<E> | undefined {
  const tab = line.indexOf('\t');
  if (tab !== 8) return undefined;
  const json = line.slice(tab + 1);
  if (checksum(json) !== line.slice(0, tab)) return undefined;
  let parsed: { seq?: unknown; at?: unknown; event?: unknown; d?: unknown; c?: unknown };
  try {
    parsed = JSON.parse(json) as typeof parsed;
  } catch {
    return undefined;
  }
  const { seq, at, d, c } = parsed;
  if (typeof seq !== 'number' || typeof at !== 'string') return undefined;
  if (d !== undefined && !isCount(d)) return undefined;
  if (c !== undefined && (d === undefined || !isCount(c) || c <= seq)) return undefined;
  return {
    entry: { seq, at, event: parsed.event as E },
    durableSeq: d,
    recordEnd: typeof c === 'number' ? c : seq,
  };
}

/**
 * Reads a journal's text: entries after `snapshotSeq` (those before are folded into the
 * snapshot already), kept while their lines are whole, valid and in sequence. Where that stops,
 * or where the text ends inside a record, the rest from that record on is a torn last record,
 * never acknowledged — set aside and reported in `recovered` — when it looks like what a cut
 * leaves (lines holding zeros, a last line without its newline) and no line after it proves it
 * acknowledged. Anything else is damage, reported with the file and line: the journal does not load.
 */
export function readJournalText<E>(text: string, file: string, snapshotSeq: number): JournalText<E> {
  const damage = (line: number, problem: string): JournalText<E> =>
    err({ file, line, problem, tornTail: false });
  // An empty journal (just compacted) has no lines, not one empty line.
  const lines = text === '' ? [] : text.split('\n');
  const terminated = text.endsWith('\n');
  if (terminated) lines.pop();
  const isHalfLast = (index: number): boolean => index === lines.length - 1 && !terminated;

  const entries: JournalEntry<E>[] = [];
  let previousSeq = snapshotSeq;
  /** The record being read, while its last entry is still to come. */
  let record: { readonly kept: number; readonly index: number; readonly end: number } | undefined;
  let stop = lines.length;
  for (const [index, line] of lines.entries()) {
    // A last line without its newline was never acknowledged (a line and its newline are written,
    // then synced, together), even when its checksum holds.
    const decoded = isHalfLast(index) ? undefined : decodeLine<E>(line);
    if (!decoded) {
      stop = index;
      break;
    }
    const { entry } = decoded;
    // Entries already folded into the snapshot (a crash between snapshot and truncation).
    if (entry.seq <= snapshotSeq) continue;
    if (entry.seq !== previousSeq + 1)
      return damage(index + 1, `entry ${entry.seq} follows entry ${previousSeq}: entries are missing`);
    // An earlier version that appended this line read the lines before it as they were.
    if (record && decoded.durableSeq === undefined) record = undefined;
    if (record && decoded.recordEnd !== record.end)
      return damage(index + 1, `entry ${entry.seq} breaks the record that ends with entry ${record.end}`);
    if (!record && decoded.recordEnd > entry.seq)
      record = { kept: entries.length, index, end: decoded.recordEnd };
    entries.push(entry);
    previousSeq = entry.seq;
    if (record?.end === entry.seq) record = undefined;
  }
  if (stop === lines.length && !record) return ok({ entries, recovered: [] });

  const setAsideFrom = record?.index ?? stop;
  const kept = record ? entries.slice(0, record.kept) : entries;
  const firstLost = (kept.at(-1)?.seq ?? snapshotSeq) + 1;
  for (let index = stop; index < lines.length; index += 1) {
    const line = lines[index]!;
    const halfLast = isHalfLast(index);
    const decoded = halfLast ? undefined : decodeLine(line);
    // A line written once the first lost entry was durable proves it was acknowledged; a line of
    // an earlier version says nothing of it, and is taken as proof, as earlier versions took it.
    const provesAcknowledged =
      decoded !== undefined && (decoded.durableSeq === undefined || decoded.durableSeq >= firstLost);
    // A cut leaves zeros where pages never reached the disk, or a last line without its newline.
    const notFromCut = decoded === undefined && !halfLast && !line.includes('\0');
    if (provesAcknowledged || notFromCut) return damage(stop + 1, CHECKSUM_FAILS);
  }
  const problem = setAsideFrom === lines.length - 1 && !terminated ? HALF_WRITTEN_LINE : HALF_WRITTEN_RECORD;
  return ok({ entries: kept, recovered: [{ file, line: setAsideFrom + 1, problem, tornTail: true }] });
}
