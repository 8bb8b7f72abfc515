/**
 * From rows to documents: rows with the same PDF and external reference form one document. The
 * checks that need every row (per-document values that agree, an e-mail address once per
 * document, a reference used by one document only), then the documents none of whose rows has a
 * problem.
 */
import { posix, resolve, win32 } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { err, ok, type Result } from '../../shared/base/result';
import type { SigningOptions } from '../../shared/domain/batch';
import { signingOptionsSchema } from '../../shared/domain/batch';
import { normalizeFilename } from '../../shared/service/filename';
import type { Participant } from '../../shared/service/wire';
import { ROWS_PER_SLICE } from './caps';
import { OPTION_KEYS, type DocumentColumn } from './columns';
import type { IssueList } from './issues';
import { problemMessage } from './messages';
import type { DocumentValue, ParsedRow } from './rows';

export interface ManifestDocument {
  /** Absolute path, resolved relative to the manifest's folder. */
  readonly pdfPath: string;
  /** The `document` value as written in the manifest. */
  readonly documentColumn: string;
  readonly externalReference: string;
  readonly transactionType: string | undefined;
  /** From the per-document columns. */
  readonly options: SigningOptions;
  /** One per row, in file order. */
  readonly recipients: Participant[];
  /** Its rows, numbered as the spreadsheet shows them. */
  readonly rows: readonly number[];
  /** The name the service will store (spec §4.2). */
  readonly storedFilename: string;
  /** Set by `checkManifest` when the PDF passed the service's upload rules. */
  readonly pdf?: { sha256: string; sizeBytes: number };
  /** The manifest's folder: its PDFs must stay inside it once their symbolic links are resolved. */
  readonly folder: string;
}

/** A document's PDF path, or why the path written is refused. */
type ResolvedPath = Result<string, string>;

/**
 * Where a document lives. Backslashes count as separators so that a manifest written on Windows
 * works anywhere; absolute paths and `..` are refused because the manifest must stay portable.
 */
function resolveDocumentPath(written: string, manifestDir: string): ResolvedPath {
  const portable = written.replace(/\\/g, '/');
  if (win32.isAbsolute(written) || posix.isAbsolute(portable) || /^[a-zA-Z]:/.test(written)) {
    return err(problemMessage('withValue', problemMessage('absolutePath'), written));
  }
  const normalized = posix.normalize(portable);
  if (normalized === '..' || normalized.startsWith('../')) {
    return err(problemMessage('withValue', problemMessage('escapingPath'), written));
  }
  return ok(resolve(manifestDir, ...normalized.split('/')));
}

export interface DocumentGroup {
  readonly documentColumn: string;
  readonly externalReference: string;
  readonly path: ResolvedPath;
  readonly rows: ParsedRow[];
  hasIssue: boolean;
}

export async function groupRows(
  rows: readonly ParsedRow[],
  manifestDir: string,
  issues: IssueList,
): Promise<DocumentGroup[]> {
  const groups = new Map<string, DocumentGroup>();
  for (const [index, row] of rows.entries()) {
    if (index % ROWS_PER_SLICE === ROWS_PER_SLICE - 1) await nextTurn();
    if (row.documentColumn === '' || row.externalReference === '') continue;
    const path = resolveDocumentPath(row.documentColumn, manifestDir);
    const identity = path.ok ? `path:${path.value}` : `written:${row.documentColumn}`;
    const key = `${identity}\u0000${row.externalReference}`;
    const group = groups.get(key);
    if (group === undefined) {
      if (!path.ok) issues.push({ row: row.rowNumber, column: 'document', message: path.error });
      groups.set(key, {
        documentColumn: row.documentColumn,
        externalReference: row.externalReference,
        path,
        rows: [row],
        hasIssue: !path.ok || row.hasIssue,
      });
    } else {
      group.rows.push(row);
      group.hasIssue ||= row.hasIssue;
    }
  }
  return [...groups.values()];
}

/** The spreadsheet row of the document's first row. */
export function firstRow(group: DocumentGroup): number {
  return group.rows[0]?.rowNumber ?? 0;
}

/** Checks that need all rows: agreement of per-document columns, duplicate e-mails, reused references. */
export async function checkDocuments(groups: readonly DocumentGroup[], issues: IssueList): Promise<void> {
  const references = new Map<string, DocumentGroup>();
  for (const [index, group] of groups.entries()) {
    if (index % ROWS_PER_SLICE === ROWS_PER_SLICE - 1) await nextTurn();
    const owner = references.get(group.externalReference);
    if (owner === undefined) {
      references.set(group.externalReference, group);
    } else {
      issues.push({
        row: firstRow(group),
        column: 'external_reference',
        message: problemMessage(
          'reusedReference',
          group.externalReference,
          firstRow(owner),
          owner.documentColumn,
        ),
      });
      group.hasIssue = true;
    }

    const firstValues = new Map<DocumentColumn, { rowNumber: number; value: DocumentValue }>();
    const emails = new Map<string, number>();
    for (const row of group.rows) {
      for (const [column, value] of row.documentValues) {
        const first = firstValues.get(column);
        if (first === undefined) {
          firstValues.set(column, { rowNumber: row.rowNumber, value });
        } else if (first.value.value !== value.value) {
          issues.push({
            row: row.rowNumber,
            column,
            message: problemMessage('disagreement', first.rowNumber, first.value.raw, value.raw),
          });
          group.hasIssue = true;
        }
      }
      if (row.participant === undefined) continue;
      const email = row.participant.email.toLowerCase();
      const seenOn = emails.get(email);
      if (seenOn === undefined) {
        emails.set(email, row.rowNumber);
      } else {
        issues.push({
          row: row.rowNumber,
          column: 'email',
          message: problemMessage('duplicateEmail', row.participant.email, seenOn),
        });
        group.hasIssue = true;
      }
    }
  }
}

export function buildDocument(group: DocumentGroup, pdfPath: string, folder: string): ManifestDocument {
  const merged: Partial<Record<keyof SigningOptions, string | boolean>> = {};
  for (const row of group.rows) {
    for (const [column, { value }] of row.documentValues) merged[OPTION_KEYS[column]] ??= value;
  }
  // Every value was validated row by row; a failure here is a bug, not bad input.
  const options = signingOptionsSchema.parse(merged);
  return {
    pdfPath,
    folder,
    documentColumn: group.documentColumn,
    externalReference: group.externalReference,
    transactionType: options.transactionType,
    options,
    recipients: group.rows.flatMap((row) => (row.participant === undefined ? [] : [row.participant])),
    rows: group.rows.map((row) => row.rowNumber),
    storedFilename: normalizeFilename(group.documentColumn.replace(/\\/g, '/').split('/').pop()),
  };
}

/** The documents none of whose rows has a problem. */
export function validDocuments(groups: readonly DocumentGroup[], folder: string): ManifestDocument[] {
  return groups.flatMap((group) =>
    group.hasIssue || !group.path.ok ? [] : [buildDocument(group, group.path.value, folder)],
  );
}
