import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import type { DocumentView, ManifestPreview } from '../../../shared/ipc/views';
import { BatchBanners } from '../components/batch-banners';
import { BatchConnection } from '../components/batch-connection';
import { RenameForm } from '../components/rename-form';
import { ScreenHeading } from '../components/screen-heading';
import { useT, useTranslator } from '../i18n';
import {
  batchProgress,
  countDocuments,
  editRefusal,
  filterDocuments,
  nextSort,
  sortDocuments,
  type DocumentSort,
  type StatusFilter,
} from '../state/document-status';
import { connectionUnavailable, needsConnection } from '../state/connection-status';
import { useDesk } from '../state/store';
import { densityFor, useChosenDensity } from '../state/table-density';
import { BatchGlance } from './batch-glance';
import { BatchSettings } from './batch-settings';
import { CheckDialog } from './check-dialog';
import { DocumentEditor } from './document-editor';
import { DocumentTable } from './document-table';
import { ManifestPreviewPanel } from './manifest-preview-panel';
import { ReviewDialog, SentSummary } from './review-dialog';

/** One batch: prepare it (offline if need be), send it, follow it, open its ceremonies. */
export function BatchScreen({ batchId }: { batchId: string }) {
  const t = useT();
  const { locale } = useTranslator();
  const detail = useDesk((state) => state.details[batchId]);
  const progress = useDesk((state) => state.progress);
  const loadError = useDesk((state) => state.loadErrors[batchId]);
  const starting = useDesk((state) => state.starting[batchId] === true);
  const { actions } = useDesk.getState();
  const [preview, setPreview] = useState<ManifestPreview | undefined>();
  const [filter, setFilter] = useState<StatusFilter>('all');
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<DocumentSort | undefined>();
  const [editing, setEditing] = useState<DocumentView | undefined>();
  const [checking, setChecking] = useState<DocumentView | undefined>();
  /** The document whose check was just resolved: the focus goes to it once it is shown. */
  const [focusDocumentId, setFocusDocumentId] = useState<string | undefined>();
  const chosenFilter = useRef<HTMLInputElement>(null);
  const [renaming, setRenaming] = useState(false);
  /** The rename form just closed: its Rename button, drawn anew, takes the focus back. */
  const renamed = useRef(false);
  const [dragging, setDragging] = useState(false);
  const [reviewing, setReviewing] = useState(false);
  /** The send/pause button, where the focus goes after a confirmed review once it can take it. */
  const primaryAction = useRef<HTMLButtonElement>(null);
  /**
   * A review was just confirmed: "Send batch" is disabled then (nothing ready is left) until it
   * becomes "Pause sending", so the focus waits for it rather than falling to the page.
   */
  const [focusAction, setFocusAction] = useState(false);

  const documents = useMemo(() => detail?.documents ?? [], [detail]);
  const shown = useMemo(
    () => sortDocuments(filterDocuments(documents, filter, search), sort, locale),
    [documents, filter, search, sort, locale],
  );
  // The batch's one count: the progress line, the filters, the banners and the glance read it.
  const counts = useMemo(() => countDocuments(documents), [documents]);
  const overall = useMemo(
    () => (detail ? batchProgress(detail, counts, progress) : undefined),
    [detail, counts, progress],
  );
  const chosenDensity = useChosenDensity((state) => state.chosen);
  const chooseDensity = useChosenDensity((state) => state.choose);
  const compact = densityFor(chosenDensity, documents.length) === 'compact';
  const focusDone = useCallback(() => setFocusDocumentId(undefined), []);
  const sortBy = useCallback((key: DocumentSort['key']) => setSort((current) => nextSort(current, key)), []);

  useEffect(() => {
    if (!focusAction) return;
    const button = primaryAction.current;
    const holder = document.activeElement;
    // Already placed (the sent summary takes a lost focus when the batch finished first).
    if (holder !== null && holder !== document.body && holder !== button) setFocusAction(false);
    else if (button && !button.disabled) {
      button.focus();
      setFocusAction(false);
    }
  });

  // A resolved document the filter now hides: the focus goes to the filter, not nowhere.
  useEffect(() => {
    if (focusDocumentId === undefined || shown.some((document) => document.id === focusDocumentId)) return;
    chosenFilter.current?.focus();
    setFocusDocumentId(undefined);
  }, [focusDocumentId, shown]);

  if (!detail) {
    return loadError ? (
      <section className="screen">
        <p role="alert">{loadError}</p>
        <button type="button" onClick={() => actions.page.navigate({ name: 'batches' })}>
          {t('batch.back')}
        </button>
      </section>
    ) : (
      <p role="status">{t('batch.loading')}</p>
    );
  }

  const engine = detail.engine;
  const running = engine.state === 'running' || engine.state === 'waiting';
  // Groups come from main's one classification (DocumentView.class); the page never derives them.
  const ready = documents.filter(
    (document) => document.class === 'not_sent' && document.problems.length === 0,
  );
  const withProblems = documents.filter(
    (document) => document.class === 'not_sent' && document.problems.length > 0,
  );
  const failed = documents.filter((document) => document.class === 'failed');
  const needsCheck = counts.needs_check;
  const canResume = !running && counts.sending > 0;
  // Its own connection is gone: what needs it says why (the banner) instead of failing.
  const noConnection = connectionUnavailable(detail);
  const connectionNeeded = needsConnection(batchId, noConnection);

  function drop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    const files = [...event.dataTransfer.files];
    if (files.length > 0) void actions.documents.addDroppedFiles(batchId, files);
  }

  return (
    <section
      aria-labelledby="batch-title"
      className={`screen batch-screen drop-target${dragging ? ' dragging' : ''}`}
      onDragOver={(event) => {
        if (![...event.dataTransfer.types].includes('Files')) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
        setDragging(true);
      }}
      onDragLeave={(event) => {
        if (event.currentTarget === event.target) setDragging(false);
      }}
      onDrop={drop}
    >
      <div className="row spread">
        <div className="row">
          <ScreenHeading id="batch-title">{detail.name}</ScreenHeading>
          {renaming ? (
            <RenameForm
              current={detail.name}
              onSave={(name) => {
                void actions.batches.rename(batchId, name);
                renamed.current = true;
                setRenaming(false);
              }}
              onCancel={() => {
                renamed.current = true;
                setRenaming(false);
              }}
            />
          ) : (
            <button
              ref={(button) => {
                if (button && renamed.current) button.focus();
                renamed.current = false;
              }}
              type="button"
              className="link"
              onClick={() => setRenaming(true)}
            >
              {t('batch.rename')}
              <span className="visually-hidden"> {t('batch.renameBatch', { name: detail.name })}</span>
            </button>
          )}
          <BatchConnection batch={detail} />
        </div>
        <button type="button" className="link" onClick={() => actions.page.navigate({ name: 'batches' })}>
          {t('batch.back')}
        </button>
      </div>

      <div className="toolbar" role="toolbar" aria-label={t('batch.actions')}>
        <button type="button" onClick={() => void actions.dialogs.pickPdfs(batchId)}>
          {t('batch.addPdfs')}
        </button>
        <button type="button" onClick={() => void actions.dialogs.pickFolder(batchId)}>
          {t('batch.addFolder')}
        </button>
        <button type="button" onClick={() => void actions.dialogs.pickManifest().then(setPreview)}>
          {t('batch.importManifest')}
        </button>
        {running ? (
          <button ref={primaryAction} type="button" onClick={() => void actions.sending.pause(batchId)}>
            {t('batch.pause')}
          </button>
        ) : canResume ? (
          <button
            ref={primaryAction}
            type="button"
            className="primary"
            disabled={starting}
            {...connectionNeeded}
            onClick={() => !noConnection && void actions.sending.resume(batchId)}
          >
            {starting ? t('batch.starting') : t('batch.resume')}
          </button>
        ) : (
          <button
            ref={primaryAction}
            type="button"
            className="primary"
            disabled={ready.length === 0 || starting}
            {...connectionNeeded}
            onClick={() => !noConnection && setReviewing(true)}
          >
            {starting ? t('batch.starting') : t('batch.send')}
          </button>
        )}
        {reviewing && (
          <ReviewDialog
            batchId={batchId}
            batchName={detail.name}
            onClose={(sent) => {
              setReviewing(false);
              setFocusAction(sent);
            }}
          />
        )}
        {failed.length > 0 && (
          <button
            type="button"
            {...connectionNeeded}
            onClick={() =>
              !noConnection &&
              void actions.sending.retryFailed(
                batchId,
                failed.map((document) => document.id),
              )
            }
          >
            {t('batch.retryFailed', { count: counts.failed })}
          </button>
        )}
        <button
          type="button"
          {...connectionNeeded}
          onClick={() => !noConnection && void actions.tracking.refreshNow(batchId)}
        >
          {t('batch.refresh')}
        </button>
        <button type="button" onClick={() => void actions.report.export(batchId)}>
          {t('batch.export')}
        </button>
      </div>

      <SentSummary batchId={batchId} documents={documents} engine={engine} />
      <BatchBanners detail={detail} counts={counts} />
      {needsCheck > 0 && (
        <div className="banner banner-error banner-with-action" role="alert">
          <p>{t('batch.needsCheck', { count: needsCheck })}</p>
          {(filter !== 'needs_check' || search !== '') && (
            <button
              type="button"
              onClick={() => {
                setFilter('needs_check');
                setSearch('');
              }}
            >
              {t('batch.showOnlyNeedsCheck', { count: needsCheck })}
            </button>
          )}
        </div>
      )}
      {!running && withProblems.length > 0 && (
        <p className="hint">
          {ready.length === 0
            ? t('batch.attentionAll', { count: withProblems.length })
            : t('batch.attentionSome', { count: withProblems.length, ready: ready.length })}
        </p>
      )}

      {preview && (
        <ManifestPreviewPanel
          batchId={batchId}
          preview={preview}
          onPreview={setPreview}
          onClose={() => setPreview(undefined)}
        />
      )}

      {overall && documents.length > 0 && (
        <BatchGlance
          documents={documents}
          counts={counts}
          overall={overall}
          filter={filter}
          onFilter={setFilter}
          filterRef={chosenFilter}
        />
      )}

      {/* The table's controls, and the batch's settings folded at their end (a line of their own once open). */}
      <div className="table-bar">
        {documents.length > 0 && (
          <div className="table-controls">
            <label className="inline">
              {t('batch.searchShort')}
              <input
                type="search"
                value={search}
                placeholder={t('batch.searchPlaceholder')}
                onChange={(event) => setSearch(event.target.value)}
              />
            </label>
            <button
              type="button"
              aria-pressed={!compact}
              onClick={() => chooseDensity(compact ? 'detailed' : 'compact')}
            >
              {t('documents.detailedRows')}
            </button>
            {/* Every document is counted by "All" already: only a narrower view is said here. */}
            <span className="muted-inline" role="status">
              {shown.length === documents.length
                ? ''
                : t('batch.shownOf', { shown: shown.length, total: documents.length })}
            </span>
          </div>
        )}
        {/* Keyed on the saved defaults: the form starts afresh only when they change. */}
        <BatchSettings key={JSON.stringify(detail.defaults)} batchId={batchId} defaults={detail.defaults} />
      </div>

      {documents.length === 0 ? (
        <div className="empty">
          <p>{t('batch.empty')}</p>
          <p className="drop-hint">{t('batch.dropHint')}</p>
        </div>
      ) : shown.length === 0 ? (
        <p className="empty">{t('batch.noMatch')}</p>
      ) : (
        <DocumentTable
          batchId={batchId}
          batchName={detail.name}
          documents={shown}
          engine={engine}
          compact={compact}
          sort={sort}
          onSort={sortBy}
          onEdit={setEditing}
          onCheck={setChecking}
          focusDocumentId={focusDocumentId}
          onFocused={focusDone}
        />
      )}

      {checking && (
        <CheckDialog
          batchId={batchId}
          document={checking}
          onClose={() => setChecking(undefined)}
          onResolved={() => {
            setChecking(undefined);
            setFocusDocumentId(checking.id);
          }}
        />
      )}
      {editing && (
        <DocumentEditor
          batchId={batchId}
          document={editing}
          // The document as main reports it now: it may start on its way while the editor is open.
          inFlight={
            editRefusal(
              documents.find((document) => document.id === editing.id) ?? editing,
              engine,
              progress[`${batchId}/${editing.id}`],
            ) !== undefined
          }
          defaults={detail.defaults}
          onClose={() => setEditing(undefined)}
        />
      )}
    </section>
  );
}
