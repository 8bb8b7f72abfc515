/**
 * The bounds of a manifest check. Caps on what a manifest may hold: each far above what an office
 * batch needs (10,000 documents of three people each), each with its own message, so that a wrong
 * or hostile file is refused quickly and in bounded memory rather than read to the end. Then how
 * much work runs between two turns of the event loop, so that the desk stays responsive.
 */

/** A manifest is a CSV export: any other file is refused before it is read (its lines would be quoted back). */
const MANIFEST_FILE_NAME = /\.(csv|txt)$/i;

/** True when `path` names a file that may be a manifest (.csv, or .txt as some spreadsheets save CSV). */
export function isManifestFileName(path: string): boolean {
  return MANIFEST_FILE_NAME.test(path);
}

/** Participant rows, for 10,000 documents of up to five people. */
export const MAX_MANIFEST_ROWS = 50_000;
/** 50,000 rows of a few hundred characters; a bigger file is the wrong file, not read into memory. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
/** Documents (distinct file and reference): twice the 10,000-document goal of one batch. */
export const MAX_MANIFEST_DOCUMENTS = 20_000;
/** Blank rows between the filled ones (those after the last filled row are not even read). */
export const MAX_BLANK_ROWS = MAX_MANIFEST_ROWS;
/** Columns in the header line: 15 are known, the rest is room for a spreadsheet's own columns. */
export const MAX_MANIFEST_COLUMNS = 100;
/** One value: a path or an e-mail address is far shorter; a longer value is a lost quote. */
export const MAX_FIELD_CHARS = 4_096;
/** One record, quotes included: beyond this the parser stops, since a lost quote swallowed the rest. */
export const MAX_LINE_CHARS = 65_536;
/** Values in one record: the header's width is capped far lower, this bounds a line of bare delimiters. */
export const MAX_LINE_VALUES = 1_000;
/** Problems listed one by one; the others are counted ("and 9,900 more problems"). */
export const MAX_LISTED_ISSUES = 100;
/** Problems kept in memory while checking, from which the first ones are listed. */
export const MAX_KEPT_ISSUES = 2_000;

/** Rows checked between two turns of the event loop, so the desk stays responsive during a large check. */
export const ROWS_PER_SLICE = 500;
/** Characters scanned for an oversized record between two turns of the event loop. */
export const CHARS_PER_SCAN_SLICE = 1024 * 1024;
/** Characters handed to the CSV parser at a time, between two turns of the event loop. */
export const CHARS_PER_SLICE = 256 * 1024;
