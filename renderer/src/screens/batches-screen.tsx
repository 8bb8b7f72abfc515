import { useMemo, useState, type FormEvent } from 'react';
import { formatCount, formatDateTime } from '../format';
import { useDesk } from '../state/store';
import { sortedBatches } from '../state/transitions';

/** Every batch with its counts; create, open, delete. */
export function BatchesScreen() {
  const batchMap = useDesk((state) => state.batches);
  // Sorting inside the selector would return a new array each time and re-render forever.
  const batches = useMemo(() => sortedBatches(batchMap), [batchMap]);
  const { createBatch, navigate, deleteBatch } = useDesk.getState();
  const [name, setName] = useState('');

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
                  <td>
                    <button
                      type="button"
                      className="link"
                      onClick={() => navigate({ name: 'batch', batchId: batch.id })}
                    >
                      {batch.name}
                    </button>
                  </td>
                  <td>{formatCount(batch.documentCount)}</td>
                  <td>{formatCount(batch.counts.draft)}</td>
                  <td>{formatCount(batch.counts.sending)}</td>
                  <td>{formatCount(batch.counts.prepared + batch.counts.inProgress)}</td>
                  <td>{formatCount(batch.counts.completed)}</td>
                  <td>{formatCount(batch.counts.failed)}</td>
                  <td>{formatDateTime(batch.updatedAt)}</td>
                  <td>
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Delete batch ${batch.name}`}
                      onClick={() => {
                        const warning =
                          sent > 0
                            ? `"${batch.name}" has ${sent} document(s) already sent. Deleting it stops tracking them here (the requests stay at the service). Delete it?`
                            : `Delete "${batch.name}"?`;
                        if (sent === 0 || window.confirm(warning)) void deleteBatch(batch.id);
                      }}
                    >
                      Delete
                    </button>
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
