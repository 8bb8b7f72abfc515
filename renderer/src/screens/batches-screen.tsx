import { useMemo, useState, type FormEvent } from 'react';
import { RenameForm } from '../components/rename-form';
import { formatCount, formatDateTime } from '../format';
import { useDesk } from '../state/store';
import { sortedBatches } from '../state/transitions';

/** Every batch with its counts by state and last activity; create, open, rename, delete. */
export function BatchesScreen() {
  const batchMap = useDesk((state) => state.batches);
  // Sorting inside the selector would return a new array each time and re-render forever.
  const batches = useMemo(() => sortedBatches(batchMap), [batchMap]);
  const { createBatch, navigate, deleteBatch, renameBatch } = useDesk.getState();
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<string | undefined>();

  function submit(event: FormEvent) {
    event.preventDefault();
    if (name.trim()) void createBatch(name.trim());
    setName('');
  }

  return (
    <section aria-labelledby="batches-title" className="screen">
      <h2 id="batches-title">Batches</h2>
      <form className="row" onSubmit={submit}>
        <label className="inline">
          New batch name
          <input
            value={name}
            onChange={(event) => setName(event.target.value)}
            placeholder="Monday employment contracts"
            maxLength={200}
            required
          />
        </label>
        <button type="submit" className="primary">
          Create batch
        </button>
      </form>
      {batches.length === 0 ? (
        <div className="empty">
          <p>
            No batch yet. Create one, then add PDFs or import a manifest (CSV) — no network needed to prepare.
          </p>
        </div>
      ) : (
        <table className="table">
          <caption className="visually-hidden">Batches</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Documents</th>
              <th scope="col">Not sent</th>
              <th scope="col">Sending</th>
              <th scope="col">Waiting for signatures</th>
              <th scope="col">Completed</th>
              <th scope="col">Failed</th>
              <th scope="col">Last activity</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {batches.map((batch) => {
              const sent = batch.documentCount - batch.counts.draft;
              return (
                <tr key={batch.id}>
                  <th scope="row">
                    {renaming === batch.id ? (
                      <RenameForm
                        current={batch.name}
                        onSave={(newName) => {
                          void renameBatch(batch.id, newName);
                          setRenaming(undefined);
                        }}
                        onCancel={() => setRenaming(undefined)}
                      />
                    ) : (
                      <button
                        type="button"
                        className="link"
                        onClick={() => navigate({ name: 'batch', batchId: batch.id })}
                      >
                        {batch.name}
                      </button>
                    )}
                    {batch.counts.gone > 0 && (
                      <span className="muted">{formatCount(batch.counts.gone)} no longer at the service</span>
                    )}
                  </th>
                  <td>{formatCount(batch.documentCount)}</td>
                  <td>{formatCount(batch.counts.draft)}</td>
                  <td>{formatCount(batch.counts.sending)}</td>
                  <td>{formatCount(batch.counts.prepared + batch.counts.inProgress)}</td>
                  <td>{formatCount(batch.counts.completed)}</td>
                  <td>{formatCount(batch.counts.failed)}</td>
                  <td>{formatDateTime(batch.updatedAt)}</td>
                  <td>
                    <div className="actions">
                      <button type="button" onClick={() => setRenaming(batch.id)}>
                        Rename<span className="visually-hidden"> batch {batch.name}</span>
                      </button>
                      <button
                        type="button"
                        className="danger"
                        onClick={() => {
                          const warning =
                            sent > 0
                              ? `"${batch.name}" has ${formatCount(sent)} document(s) already sent. Deleting it stops tracking them here (the requests stay at the service). Delete it?`
                              : `Delete "${batch.name}"?`;
                          if (window.confirm(warning)) void deleteBatch(batch.id);
                        }}
                      >
                        Delete<span className="visually-hidden"> batch {batch.name}</span>
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
