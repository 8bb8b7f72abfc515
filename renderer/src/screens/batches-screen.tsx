import { useMemo, useState, type FormEvent } from 'react';
import { RenameForm } from '../components/rename-form';
import { focusIfLost, ScreenHeading } from '../components/screen-heading';
import { useT, useTranslator } from '../i18n';
import { batchConnection } from '../state/batch-connection';
import { useDesk } from '../state/store';
import { sortedBatches } from '../state/transitions';

/** Every batch with its counts by state and last activity; create, open, rename, delete. */
export function BatchesScreen() {
  const t = useT();
  const { intl } = useTranslator();
  const count = (value: number) => intl.formatNumber(value);
  const batchMap = useDesk((state) => state.batches);
  const profiles = useDesk((state) => state.profiles);
  // Sorting inside the selector would return a new array each time and re-render forever.
  const batches = useMemo(() => sortedBatches(batchMap), [batchMap]);
  const { actions } = useDesk.getState();
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<string | undefined>();

  function submit(event: FormEvent) {
    event.preventDefault();
    if (name.trim()) void actions.batches.create(name.trim());
    setName('');
  }

  return (
    <section aria-labelledby="batches-title" className="screen">
      <ScreenHeading id="batches-title">{t('common.batches')}</ScreenHeading>
      <form className="row" onSubmit={submit}>
        <label className="inline">
          {t('batches.newName')}
          <input
            value={name}
            onChange={(event) => setName(event.target.value)}
            placeholder={t('batches.newNamePlaceholder')}
            maxLength={200}
            required
          />
        </label>
        <button type="submit" className="primary">
          {t('batches.create')}
        </button>
      </form>
      {batches.length === 0 ? (
        <div className="empty">
          <p>{t('batches.empty')}</p>
        </div>
      ) : (
        <table className="table">
          <caption className="visually-hidden">{t('common.batches')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('batches.columnName')}</th>
              <th scope="col">{t('batches.columnConnection')}</th>
              <th scope="col">{t('batches.columnDocuments')}</th>
              <th scope="col">{t('batches.columnNotSent')}</th>
              <th scope="col">{t('batches.columnSending')}</th>
              <th scope="col">{t('batches.columnWaiting')}</th>
              <th scope="col">{t('batches.columnCompleted')}</th>
              <th scope="col">{t('batches.columnFailed')}</th>
              <th scope="col">{t('batches.columnLastActivity')}</th>
              <th scope="col">{t('batches.columnActions')}</th>
            </tr>
          </thead>
          <tbody>
            {batches.map((batch) => {
              const sent = batch.documentCount - batch.counts.not_sent;
              const connection = batchConnection(batch, profiles);
              return (
                <tr key={batch.id}>
                  <th scope="row">
                    {renaming === batch.id ? (
                      <RenameForm
                        current={batch.name}
                        onSave={(newName) => {
                          void actions.batches.rename(batch.id, newName);
                          setRenaming(undefined);
                        }}
                        onCancel={() => setRenaming(undefined)}
                      />
                    ) : (
                      <button
                        type="button"
                        className="link"
                        onClick={() => actions.page.navigate({ name: 'batch', batchId: batch.id })}
                      >
                        {batch.name}
                      </button>
                    )}
                    {batch.counts.gone > 0 && (
                      <span className="muted">{t('batches.gone', { count: batch.counts.gone })}</span>
                    )}
                    {batch.counts.ended > 0 && (
                      <span className="muted">{t('batches.ended', { count: batch.counts.ended })}</span>
                    )}
                    {batch.counts.unknown_status > 0 && (
                      <span className="muted">
                        {t('batches.unknownStatus', { count: batch.counts.unknown_status })}
                      </span>
                    )}
                  </th>
                  <td>
                    {/* The batch's own connection, whatever the active one is; none before it is sent. */}
                    {connection ? (
                      <>
                        {connection.name ?? connection.host}
                        <span className="muted">
                          {connection.name === undefined
                            ? t('batches.connectionClient', { clientId: connection.clientId })
                            : connection.host}
                        </span>
                      </>
                    ) : (
                      <span className="muted-inline">{t('batches.connectionNotYet')}</span>
                    )}
                  </td>
                  <td>{count(batch.documentCount)}</td>
                  <td>{count(batch.counts.not_sent)}</td>
                  <td>{count(batch.counts.sending)}</td>
                  <td>{count(batch.counts.waiting)}</td>
                  <td>{count(batch.counts.completed)}</td>
                  <td>{count(batch.counts.failed)}</td>
                  <td>{intl.formatDate(batch.updatedAt, { dateStyle: 'medium', timeStyle: 'short' })}</td>
                  <td>
                    <div className="actions">
                      <button type="button" onClick={() => setRenaming(batch.id)}>
                        {t('batches.rename')}
                        <span className="visually-hidden">
                          {' '}
                          {t('batches.batchNamed', { name: batch.name })}
                        </span>
                      </button>
                      <button
                        type="button"
                        className="danger"
                        onClick={() => {
                          const warning =
                            sent > 0
                              ? t('batches.deleteSent', { name: batch.name, count: sent })
                              : t('batches.deleteConfirm', { name: batch.name });
                          if (window.confirm(warning))
                            // Its row goes with it: the focus goes to the list's heading, not the page's body.
                            void actions.batches.delete(batch.id).then(() => focusIfLost('batches-title'));
                        }}
                      >
                        {t('batches.delete')}
                        <span className="visually-hidden">
                          {' '}
                          {t('batches.batchNamed', { name: batch.name })}
                        </span>
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
