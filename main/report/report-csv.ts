import { phaseOf, type BatchState } from '../batch/batch-state';

/** Characters that make Excel or LibreOffice read a cell as a formula (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell, quoted, with a leading apostrophe when it could be read as a formula. */
export function csvCell(value: string | number | boolean | undefined): string {
  const text = value === undefined ? '' : String(value);
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

export const REPORT_COLUMNS = [
  'batch',
  'external_reference',
  'filename',
  'recipients',
  'send_state',
  'request_id',
  'status',
  'document_status',
  'evidence_ready',
  'prepared_at',
  'opened_at',
  'finalized_at',
  'error',
] as const;

/**
 * The status report of a batch as CSV that opens safely in Excel: UTF-8 with BOM, CRLF,
 * every cell quoted, formula-like cells neutralised, one row per document.
 */
export function batchReportCsv(batch: BatchState): string {
  const rows = batch.documents.map((document) =>
    [
      batch.name,
      document.draft.externalReference,
      document.draft.pdf.storedFilename,
      document.draft.recipients.map((recipient) => `${recipient.name} <${recipient.email}>`).join('; '),
      phaseOf(document),
      document.send.requestId,
      document.gone ? 'gone' : document.tracking?.status,
      document.tracking?.documentStatus,
      document.tracking?.evidenceReady,
      document.tracking?.preparedAt ?? document.send.prepared?.at,
      document.tracking?.openedAt,
      document.tracking?.finalizedAt,
      document.send.error?.message,
    ]
      .map(csvCell)
      .join(','),
  );
  return `\uFEFF${[REPORT_COLUMNS.map(csvCell).join(','), ...rows].join('\r\n')}\r\n`;
}
