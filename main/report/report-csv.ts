import type { Person } from '../../shared/domain/people';
import type { Translator } from '../../shared/i18n/translator';
import { phaseOf, type BatchState, type DocumentState } from '../domain/batch-state';
import { classOf } from '../domain/document-class';
import { peopleOf } from '../domain/people-of';
import { errorMessageIn } from '../domain/send-messages';
import { sendProblems } from '../domain/send-readiness';
import { localTimeWriter, systemTimeZone } from './report-times';

/**
 * A cell Excel or LibreOffice could read as a formula (OWASP "CSV injection"): one starting with
 * a tab or a carriage return, or whose first character after any whitespace (spaces, tabs, line
 * breaks, which an import may trim) is `=`, `+`, `-` or `@`.
 */
const FORMULA_START = /^(?:[\t\r]|\s*[=+\-@])/;

/**
 * A line break inside a cell followed by a line that would start a formula once the cell is
 * split into lines (Excel can split a quoted multi-line cell on import): a tab, or `=`, `+`, `-`
 * or `@` after any spaces or tabs.
 */
const FORMULA_AFTER_LINE_BREAK = /(\r\n|\r|\n)(?=\t|[^\S\r\n]*[=+\-@])/g;

/**
 * A piece of a cell that starts a formula once the cell is split on a list separator (Excel's
 * "Text to Columns", or the text pasted into a sheet, which splits at tabs): a formula character
 * after `;`, `,` or a tab and any spaces.
 */
const FORMULA_AFTER_SEPARATOR = /([;,\t]\s*)(?=[=+\-@])/g;

/** `text` with a leading apostrophe when a spreadsheet could read it as a formula. */
export function defuse(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * One cell, quoted, neutralised when it could be read as a formula: at its start, at the start
 * of each of its lines (the apostrophe right after the line break, as at the cell's start, so
 * the line starts with it), and after every separator inside it, so no piece of it starts a
 * formula once the cell is split. Nothing else of the text changes.
 */
export function csvCell(value: string | undefined): string {
  const safe = defuse(value ?? '')
    .replace(FORMULA_AFTER_LINE_BREAK, "$1'")
    .replace(FORMULA_AFTER_SEPARATOR, "$1'");
  return `"${safe.replace(/"/g, '""')}"`;
}

/** Languages whose Excel expects a semicolon, whatever the region's decimal sign (Swiss German has a point). */
const SEMICOLON_LANGUAGES = new Set(['fr', 'de']);

/**
 * The separator a spreadsheet expects in `locale`: in French and German (de-CH and de-LI
 * included, although their decimal sign is a point), and wherever the decimal sign is a comma,
 * Excel's list separator is a semicolon, and a comma-separated file opens in one column;
 * elsewhere a comma.
 */
export function listSeparatorOf(locale: string): ',' | ';' {
  const language = new Intl.Locale(locale).language;
  if (SEMICOLON_LANGUAGES.has(language)) return ';';
  const decimal = new Intl.NumberFormat(locale).formatToParts(1.5).find((part) => part.type === 'decimal');
  return decimal?.value === ',' ? ';' : ',';
}

/**
 * The report's columns, in order, with their header in the person's language. One state
 * column: the three machine columns of earlier reports (`send_state`, `status`,
 * `document_status`) could say "prepared" and "completed" for the same document, so they are
 * gone. Each time twice: in this computer's time zone, written as the person's language writes
 * dates (their spreadsheet reads it as a date; the header names the zone), and, in the last
 * columns, the service's ISO 8601 value in UTC, the same in every language and sortable as text.
 */
export const REPORT_COLUMNS = [
  'batch',
  'reference',
  'file',
  'recipients',
  'state',
  'requestId',
  'preparedAt',
  'openedAt',
  'finalizedAt',
  'evidence',
  'problem',
  'preparedAtUtc',
  'openedAtUtc',
  'finalizedAtUtc',
] as const;
export type ReportColumn = (typeof REPORT_COLUMNS)[number];

/**
 * The status report of a batch as CSV that opens in the person's spreadsheet: UTF-8 with BOM,
 * their list separator, CRLF, every cell quoted, formula-like cells and pieces of cells
 * neutralised (csvCell; each person's name, role and e-mail too, so splitting the recipients
 * cell at its brackets or dashes cannot make a formula either),
 * headers and words in their language, times in `timeZone` (this computer's), one row per document.
 */
export function batchReportCsv(
  batch: BatchState,
  translator: Translator,
  timeZone: string = systemTimeZone(),
): string {
  const separator = listSeparatorOf(translator.locale);
  const local = localTimeWriter(translator.locale, timeZone);
  const line = (cells: readonly (string | undefined)[]) => cells.map(csvCell).join(separator);
  const header = line(
    REPORT_COLUMNS.map((column) => translator.t(`report.column.${column}`, { zone: timeZone })),
  );
  const rows = batch.documents.map((document) => {
    const preparedAt = document.tracking?.preparedAt ?? document.send.prepared?.at;
    const cells: Record<ReportColumn, string | undefined> = {
      batch: batch.name,
      reference: document.draft.externalReference,
      file: document.draft.pdf.storedFilename,
      recipients: peopleOf(batch.defaults, document)
        .map((person) => personText(person, translator))
        .join('; '),
      state: stateText(document, translator),
      requestId: document.send.requestId,
      preparedAt: local(preparedAt),
      openedAt: local(document.tracking?.openedAt),
      finalizedAt: local(document.tracking?.finalizedAt),
      // Evidence means something once everyone signed; before, "no" would read as a fault.
      evidence:
        document.tracking?.status === 'completed' && !document.gone
          ? translator.t(document.tracking.evidenceReady ? 'report.yes' : 'report.no')
          : undefined,
      problem: problemText(batch, document, translator),
      preparedAtUtc: preparedAt,
      openedAtUtc: document.tracking?.openedAt,
      finalizedAtUtc: document.tracking?.finalizedAt,
    };
    return line(REPORT_COLUMNS.map((column) => cells[column]));
  });
  return `\uFEFF${[header, ...rows].join('\r\n')}\r\n`;
}

/**
 * What went wrong, or what stops a document not sent yet from going: the same sentences the
 * table shows (each ends with its own full stop), one after the other.
 */
function problemText(batch: BatchState, document: DocumentState, translator: Translator): string | undefined {
  if (document.send.error) return errorMessageIn(document.send.error, translator.t);
  if (phaseOf(document) !== 'draft') return undefined;
  return sendProblems(batch.defaults, document.draft, translator.t).join(' ') || undefined;
}

/**
 * The document's state in the person's words: its class (the one classification), with the
 * service's own progress while it waits for signatures, so a request everyone signed is never
 * reported as still waiting for them, and the service's own word for a request that ended or
 * whose status the app does not know.
 */
function stateText(document: DocumentState, translator: Translator): string {
  const documentClass = classOf(document);
  const status = defuse(document.tracking?.status ?? '');
  switch (documentClass) {
    case 'waiting':
      if (document.tracking?.status === 'in_progress') return translator.t('report.state.signing');
      if (document.tracking?.status === 'completed')
        return translator.t('report.state.signedEvidencePending');
      return translator.t('report.state.waiting');
    case 'ended':
      return translator.t('report.state.ended', { status });
    case 'unknown_status':
      return translator.t('report.state.unknownStatus', { status });
    default:
      return translator.t(`report.state.${documentClass}`);
  }
}

function personText(person: Person, translator: Translator): string {
  const values = {
    name: defuse(person.name),
    email: defuse(person.email),
    role: defuse(person.role),
    type: translator.t(person.participant_type === 'signer' ? 'people.signer' : 'people.observer'),
    source: translator.t(`people.source.${person.source}`),
  };
  return person.signing_order === undefined
    ? translator.t('report.person', values)
    : translator.t('report.personInOrder', { ...values, order: person.signing_order });
}
