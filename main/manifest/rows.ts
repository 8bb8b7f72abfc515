/**
 * One participant row: its values read under the header, each checked with the service's rules
 * (shared/service/wire.ts) and every problem said in words for office staff, naming what was
 * received; and the per-document values it gives its document.
 */
import type { z } from 'zod';
import { localeSchema, participantSchema } from '../../shared/service/wire';
import type { Participant } from '../../shared/service/wire';
import { MAX_FIELD_CHARS } from './caps';
import { BOOLEAN_COLUMNS, DOCUMENT_COLUMNS, REQUIRED_COLUMNS, type DocumentColumn } from './columns';
import type { Header } from './header';
import type { IssueList, ManifestIssue } from './issues';
import { problemMessage } from './messages';

export interface DocumentValue {
  readonly raw: string;
  readonly value: string | boolean;
}

export interface ParsedRow {
  /** Its row in the spreadsheet (the header is row 1). */
  readonly rowNumber: number;
  readonly documentColumn: string;
  readonly externalReference: string;
  readonly participant: Participant | undefined;
  readonly documentValues: ReadonlyMap<DocumentColumn, DocumentValue>;
  readonly hasIssue: boolean;
}

type Field = { readonly kind: 'blank' } | { readonly kind: 'value'; readonly value: string };

/**
 * Excel writes a boolean cell in the workbook's language (VRAI/FAUX in French, WAHR/FALSCH in
 * German), so those are accepted next to the spellings people type by hand.
 */
const BOOLEAN_WORDS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['yes', true],
  ['1', true],
  ['vrai', true],
  ['wahr', true],
  ['false', false],
  ['no', false],
  ['0', false],
  ['faux', false],
  ['falsch', false],
]);

function parseBoolean(raw: string): boolean | undefined {
  return BOOLEAN_WORDS.get(raw.toLowerCase());
}

/** Why a zod issue happened, in words for office staff, naming what was received. */
function describeParticipantIssue(column: string, issue: z.core.$ZodIssue, raw: string): string {
  if (column === 'participant_type')
    return problemMessage('withValue', problemMessage('participantType'), raw);
  // A text over the limit is too long to quote usefully; its length says what to fix.
  if (issue.code === 'too_big' && issue.origin === 'string')
    return problemMessage('tooLong', problemMessage('atMost', Number(issue.maximum)), raw.length);
  const message =
    issue.code === 'too_small'
      ? issue.origin === 'number'
        ? problemMessage('atLeast', issue.minimum)
        : problemMessage('required')
      : issue.code === 'invalid_format'
        ? problemMessage('email')
        : problemMessage('invalid');
  return problemMessage('withValue', message, raw);
}

export function parseRow(
  rowNumber: number,
  fields: readonly string[],
  header: Header,
  issues: IssueList,
): ParsedRow {
  const rowIssues: ManifestIssue[] = [];
  const flag = (column: string | undefined, message: string, columnIndex?: number): void => {
    rowIssues.push({
      row: rowNumber,
      column,
      message,
      ...(columnIndex === undefined ? {} : { columnIndex }),
    });
  };
  const read = (column: string): Field => {
    const position = header.positions.get(column);
    const value = position === undefined ? '' : (fields[position] ?? '').trim();
    return value === '' ? { kind: 'blank' } : { kind: 'value', value };
  };
  const text = (column: string): string => {
    const field = read(column);
    return field.kind === 'value' ? field.value : '';
  };

  for (const [column, position] of header.positions) {
    const length = fields[position]?.length ?? 0;
    if (length > MAX_FIELD_CHARS) flag(column, problemMessage('fieldTooLong', length));
  }
  if (rowIssues.length > 0) {
    issues.push(...rowIssues);
    return {
      rowNumber,
      documentColumn: '',
      externalReference: '',
      participant: undefined,
      documentValues: new Map(),
      hasIssue: true,
    };
  }

  for (const { position, at } of header.unnamed) {
    if ((fields[at] ?? '').trim() !== '') flag(undefined, problemMessage('unnamedColumnValue'), position);
  }
  for (const column of REQUIRED_COLUMNS) {
    if (header.positions.has(column) && read(column).kind === 'blank')
      flag(column, problemMessage('required'));
  }

  const candidate: Record<string, unknown> = {
    participant_type: text('participant_type').toLowerCase(),
    role: text('role'),
    name: text('name'),
    email: text('email'),
  };
  const signingOrder = read('signing_order');
  if (signingOrder.kind === 'value') {
    if (/^\d+$/.test(signingOrder.value)) candidate['signing_order'] = Number(signingOrder.value);
    else
      flag('signing_order', problemMessage('withValue', problemMessage('signingOrder'), signingOrder.value));
  }
  const isInternal = read('is_internal');
  if (isInternal.kind === 'value') {
    const value = parseBoolean(isInternal.value);
    if (value === undefined)
      flag('is_internal', problemMessage('withValue', problemMessage('boolean'), isInternal.value));
    else candidate['is_internal'] = value;
  }

  let participant: Participant | undefined;
  const result = participantSchema.safeParse(candidate);
  if (result.success) {
    participant = result.data;
  } else {
    const flagged = new Set(rowIssues.map((issue) => issue.column));
    for (const zodIssue of result.error.issues) {
      const column = String(zodIssue.path[0]);
      if (flagged.has(column) || !header.positions.has(column)) continue;
      flagged.add(column);
      flag(column, describeParticipantIssue(column, zodIssue, text(column)));
    }
  }

  const documentValues = new Map<DocumentColumn, DocumentValue>();
  for (const column of DOCUMENT_COLUMNS) {
    const field = read(column);
    if (field.kind === 'blank') continue;
    if (BOOLEAN_COLUMNS.has(column)) {
      const value = parseBoolean(field.value);
      if (value === undefined)
        flag(column, problemMessage('withValue', problemMessage('boolean'), field.value));
      else documentValues.set(column, { raw: field.value, value });
    } else if (column === 'locale') {
      const locale = localeSchema.safeParse(field.value);
      if (locale.success) documentValues.set(column, { raw: field.value, value: locale.data });
      else flag(column, problemMessage('withValue', problemMessage('locale'), field.value));
    } else {
      documentValues.set(column, { raw: field.value, value: field.value });
    }
  }

  issues.push(...rowIssues);
  return {
    rowNumber,
    documentColumn: text('document'),
    externalReference: text('external_reference'),
    participant,
    documentValues,
    // A participant can also be missing for want of a column, which the header's issue reports.
    hasIssue: rowIssues.length > 0 || participant === undefined,
  };
}
