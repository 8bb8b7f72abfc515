import { Fragment, memo, useEffect, useRef } from 'react';
import type { MessageId } from '../../../shared/i18n/catalog';
import type { DocumentView, EngineStateView } from '../../../shared/ipc/views';
import { PdfThumbnail } from '../components/pdf-thumbnail';
import { PeopleCell } from '../components/people-cell';
import { describeState, formatBytes, formatDateTime, formatShortDateTime } from '../format';
import { useT, useTranslator } from '../i18n';
import { connectionUnavailable, needsConnection } from '../state/connection-status';
import { documentProgress, editRefusal } from '../state/document-status';
import { useDesk } from '../state/store';
import { COMPACT_ROW_PX } from '../state/table-density';
import type { Progress } from '../state/transitions';
import { heldBackCheck } from './check-dialog';

/** An upload's bytes in words, by where its attempt is (`Progress.upload`). */
const UPLOAD_WORDS = {
  sending: 'documents.uploaded',
  confirming: 'documents.uploadConfirming',
  sending_again: 'documents.uploadAgain',
} as const satisfies Record<NonNullable<Progress['upload']>, MessageId>;

/** Every compact row as tall as the table reserves for one (`COMPACT_ROW_PX`). */
const COMPACT_ROW_STYLE = { height: COMPACT_ROW_PX } as const;

export interface DocumentRowProps {
  readonly measure: (element: Element | null) => void;
  readonly index: number;
  readonly batchId: string;
  readonly document: DocumentView;
  readonly live: Progress | undefined;
  readonly engineState: EngineStateView['state'];
  /** One line a document (a large batch at a glance), or everything about it (see `TableDensity`). */
  readonly compact: boolean;
  readonly onEdit: (document: DocumentView) => void;
  readonly onCheck: (document: DocumentView) => void;
  readonly takeFocus: boolean;
  readonly onFocused: (() => void) | undefined;
}

/**
 * One document of the table. Compact, each cell holds one line (what it is, who receives it,
 * where it stands, its latest step and what can be done), so a dozen and more rows fit in a
 * window; detailed, it also shows its size and digest, each person with their role, and its
 * whole timeline.
 */
export const DocumentRow = memo(function DocumentRow({
  measure,
  index,
  batchId,
  document,
  live,
  engineState,
  compact,
  onEdit,
  onCheck,
  takeFocus,
  onFocused,
}: DocumentRowProps) {
  const { actions } = useDesk.getState();
  const t = useT();
  const { locale } = useTranslator();
  const stateLabel = useRef<HTMLSpanElement>(null);
  // The batch's own connection is gone: its ceremonies cannot open, and the button says why.
  const noConnection = useDesk((state) => {
    const batch = state.details[batchId];
    return batch !== undefined && connectionUnavailable(batch);
  });
  useEffect(() => {
    if (!takeFocus) return;
    stateLabel.current?.focus();
    onFocused?.();
  }, [takeFocus, onFocused]);
  const value = documentProgress(document, live);
  const refusal = editRefusal(document, { state: engineState }, live);
  const reasonId = `reason-${batchId}-${document.id}`;
  const reference = document.externalReference;
  // Another batch holds its reference: sent only anew on purpose, through the check dialog's confirmation.
  const heldBack = heldBackCheck(document, t);
  const uploading = live?.phase === 'uploading' && live.sentBytes !== undefined && live.totalBytes;
  return (
    <tr
      ref={measure}
      data-index={index}
      aria-rowindex={index + 2}
      data-reference={reference}
      className={compact ? 'compact-row' : undefined}
      style={compact ? COMPACT_ROW_STYLE : undefined}
    >
      <th scope="row">
        {reference}
        {document.requestId && <span className="muted mono">{document.requestId}</span>}
      </th>
      <td>
        <PdfThumbnail batchId={batchId} document={document} small={compact} />
        <span className="filename">{document.storedFilename}</span>
        {!compact && (
          <span className="muted">
            {formatBytes(document.sizeBytes, locale)} · SHA-256{' '}
            <button
              type="button"
              className="link mono"
              title={t('documents.sha.title')}
              onClick={() =>
                void actions.page.copyText(document.sha256, t('documents.sha.copied', { reference }))
              }
            >
              {document.sha256.slice(0, 12)}…
              <span className="visually-hidden"> {t('documents.sha.copy', { reference })}</span>
            </button>
          </span>
        )}
      </td>
      <td>
        {/* On one line, what stops a document from going comes first: it is what the person reads. */}
        {compact && <Problems problems={document.problems} />}
        {compact ? (
          <span className="people-names">{document.people.map((person) => person.name).join(', ')}</span>
        ) : (
          <PeopleCell people={document.people} reference={reference} />
        )}
        {!compact && <Problems problems={document.problems} />}
      </td>
      <td>
        {/* Focusable from script only: where the focus lands once the document's check is resolved. */}
        <span ref={stateLabel} tabIndex={-1} className={`state state-${document.class}`}>
          {describeState(document, t, live?.phase)}
        </span>
        {value !== undefined && value < 1 && (
          <progress max={1} value={value} aria-label={t('documents.progressOf', { reference })} />
        )}
        {uploading && (
          <span className="muted">
            {t(UPLOAD_WORDS[live.upload ?? 'sending'], {
              sent: formatBytes(live.sentBytes ?? 0, locale),
              total: formatBytes(live.totalBytes ?? 0, locale),
            })}
          </span>
        )}
        {document.error && <span className="problem">{document.error.message}</span>}
      </td>
      <td>{compact ? <LatestStep document={document} /> : <Timeline document={document} />}</td>
      <td>
        <div className="actions">
          {document.canOpenCeremony && (
            <button
              type="button"
              {...needsConnection(batchId, noConnection)}
              onClick={() => !noConnection && void actions.ceremony.open(batchId, document.id)}
            >
              {t('documents.action.openCeremony')}
              <span className="visually-hidden"> {t('documents.action.openCeremonyFor', { reference })}</span>
            </button>
          )}
          {document.heldBy && !document.heldBy.deleted && (
            <button
              type="button"
              className="link"
              onClick={() =>
                actions.page.navigate({ name: 'batch', batchId: document.heldBy?.batchId ?? batchId })
              }
            >
              {t('documents.action.openHolder', { batch: document.heldBy.batchName })}
            </button>
          )}
          {document.check && (
            <button type="button" onClick={() => onCheck(document)}>
              {t('documents.action.check')}
              <span className="visually-hidden"> {reference}</span>
            </button>
          )}
          {heldBack && (
            <button type="button" onClick={() => onCheck(heldBack)}>
              {t('documents.action.sendAnew')}
              <span className="visually-hidden"> {reference}</span>
            </button>
          )}
          {document.gone && (
            <button type="button" onClick={() => void actions.tracking.checkAgain(batchId, document.id)}>
              {t('documents.action.checkAgain')}
              <span className="visually-hidden"> {t('documents.action.checkAgainFor', { reference })}</span>
            </button>
          )}
          {document.class === 'failed' && (
            <button type="button" onClick={() => void actions.sending.retry(batchId, document.id)}>
              {t('documents.action.retry')}
              <span className="visually-hidden"> {reference}</span>
            </button>
          )}
          {/* A sent document offers neither; one in flight shows both disabled, with why. */}
          {!document.locked && (
            <>
              <button
                type="button"
                disabled={refusal !== undefined}
                aria-describedby={refusal ? reasonId : undefined}
                title={refusal ? t(refusal) : undefined}
                onClick={() => onEdit(document)}
                aria-label={t('editor.title', { reference })}
              >
                {t('documents.action.edit')}
              </button>
              <button
                type="button"
                className="danger"
                disabled={refusal !== undefined}
                aria-describedby={refusal ? reasonId : undefined}
                title={refusal ? t(refusal) : undefined}
                aria-label={t('documents.action.removeNamed', { reference })}
                onClick={() => {
                  if (window.confirm(t('documents.action.removeConfirm', { reference })))
                    void actions.documents.remove(batchId, document.id);
                }}
              >
                {t('documents.action.remove')}
              </button>
              {refusal && (
                <span id={reasonId} className="action-reason">
                  {t(refusal)}
                </span>
              )}
            </>
          )}
        </div>
      </td>
    </tr>
  );
});

/** Why a document cannot be sent yet, each reason on its own. */
function Problems({ problems }: { readonly problems: readonly string[] }) {
  return problems.map((problem, position) => (
    <span key={`${position}-${problem}`} className="problem">
      {problem}
    </span>
  ));
}

/** Every step that happened, each with its date, and the last change. Only what happened: no "Prepared —". */
function Timeline({ document }: { readonly document: DocumentView }) {
  const t = useT();
  const { locale } = useTranslator();
  const steps: [MessageId, string | undefined][] = [
    ['documents.timeline.prepared', document.preparedAt],
    ['documents.timeline.opened', document.tracking?.openedAt],
    ['documents.timeline.finalized', document.tracking?.finalizedAt],
    ['documents.timeline.lastChecked', document.lastCheckedAt],
    ['documents.timeline.lastChange', document.updatedAt],
  ];
  return (
    <dl className="timeline">
      {steps.map(([label, at]) =>
        at ? (
          <Fragment key={label}>
            <dt>{t(label)}</dt>
            <dd>{formatDateTime(at, locale)}</dd>
          </Fragment>
        ) : null,
      )}
    </dl>
  );
}

/** The latest step a document reached (finalized, opened, prepared, else its last change): its date in the short form, and its name. */
function LatestStep({ document }: { readonly document: DocumentView }) {
  const t = useT();
  const { locale } = useTranslator();
  const [label, at]: [MessageId, string] = document.tracking?.finalizedAt
    ? ['documents.timeline.finalized', document.tracking.finalizedAt]
    : document.tracking?.openedAt
      ? ['documents.timeline.opened', document.tracking.openedAt]
      : document.preparedAt
        ? ['documents.timeline.prepared', document.preparedAt]
        : ['documents.timeline.lastChange', document.updatedAt];
  // The date first: when the column is narrow, the step's name is what ends in "…", never the date.
  return (
    <span className="latest-step">
      <time dateTime={at}>{formatShortDateTime(at, locale)}</time>{' '}
      <span className="muted-inline">{t(label)}</span>
    </span>
  );
}
