import type { DocumentDraft } from '../../../shared/domain/batch';
import type { BatchStore } from '../../../main/store/batch-store';
import type { PdfCheckResult } from '../../../main/files/pdf-check';
import type { BlobStore } from '../../../main/store/blob-store';
import type { LoggedChange, StoreExpectations } from './power-cut-model';

/** What one round of work runs against, all of it seeded. */
export interface Workload {
  readonly store: BatchStore;
  readonly blobs: BlobStore;
  readonly expectations: StoreExpectations;
  /** Seeded draws deciding what the round does. */
  readonly plan: () => number;
  /** Paths of PDFs that can be taken in (in the originals' file system). */
  readonly originals: readonly string[];
  /** Makes names unique across the whole run, so a batch is recognised by its name. */
  readonly label: string;
  /** Hears each acknowledged record of a group of several PDFs taken in together. */
  readonly onGroupRecorded?: (documents: number) => void;
}

function pick<T>(plan: () => number, items: readonly T[]): T {
  return items[Math.floor(plan() * items.length)]!;
}

/** Runs `work` `count` times at once and waits for all; rethrows the first failure. */
async function together(count: number, work: () => Promise<void>): Promise<void> {
  const results = await Promise.allSettled(Array.from({ length: count }, work));
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}

class Round {
  readonly #work: Workload;
  #counter = 0;

  constructor(work: Workload) {
    this.#work = work;
  }

  #name(kind: string): string {
    this.#counter += 1;
    return `${this.#work.label}-${kind}${this.#counter}`;
  }

  /** Records changes, telling the oracle before the call and once it resolved. */
  async #record(
    handle: object,
    id: string,
    changes: readonly Omit<LoggedChange, 'acknowledged' | 'endsRecord'>[],
    events: Parameters<BatchStore['record']>[1],
  ): Promise<void> {
    // A batch at rest is read back first, so that this record is appended as it is logged: a
    // record into a batch out of memory waits for its read, and one called meanwhile may pass it.
    await this.#work.store.open(id);
    const logged = this.#work.expectations.appending(handle, changes);
    await this.#work.store.record(id, events);
    this.#work.expectations.acknowledged(logged);
  }

  async #rename(handle: object, id: string): Promise<void> {
    const { plan } = this.#work;
    const names = Array.from({ length: plan() < 0.2 ? 2 : 1 }, () => this.#name('name'));
    await this.#record(
      handle,
      id,
      names.map((name) => ({ kind: 'renamed', name })),
      names.map((name) => ({ type: 'batch_renamed', name })),
    );
  }

  #draft(intake: PdfCheckResult): DocumentDraft {
    if (!intake.ok) throw new Error(`intake refused a test PDF: ${intake.error.message}`);
    const documentId = this.#name('doc');
    return {
      id: documentId,
      externalReference: documentId,
      pdf: { originalName: 'contract.pdf', storedFilename: 'contract.pdf', ...intake.value },
      recipients: [],
      extraParticipants: [],
      options: {},
    };
  }

  /** Records documents in one call, as one journal append. */
  async #recordDocuments(handle: object, id: string, drafts: readonly DocumentDraft[]): Promise<void> {
    await this.#record(
      handle,
      id,
      drafts.map((draft) => ({ kind: 'document', documentId: draft.id })),
      drafts.map((document) => ({ type: 'document_added', document })),
    );
  }

  async #addDocument(handle: object, id: string): Promise<void> {
    const { blobs, plan } = this.#work;
    await this.#recordDocuments(handle, id, [
      this.#draft(await blobs.intake(pick(plan, this.#work.originals))),
    ]);
  }

  /**
   * Several PDFs taken in at once, as addPdfDocuments and importManifest do: copied a few at a time
   * in small groups, each group recorded in one call once `intakeMany` says its copies are durable.
   */
  async #addDocuments(handle: object, id: string): Promise<void> {
    const { blobs, plan } = this.#work;
    // Drawn before the work starts, so concurrent copies cannot change which draw goes where.
    const paths = Array.from({ length: 2 + Math.floor(plan() * 6) }, () => pick(plan, this.#work.originals));
    const options = { concurrency: 1 + Math.floor(plan() * 3), groupFiles: 2 + Math.floor(plan() * 3) };
    for await (const group of blobs.intakeMany(
      paths.map((path) => ({ path })),
      options,
    )) {
      const drafts = group.results.map((intake) => this.#draft(intake));
      await this.#recordDocuments(handle, id, drafts);
      if (drafts.length > 1) this.#work.onGroupRecorded?.(drafts.length);
    }
  }

  /**
   * Brings the batch to rest (main/domain/batch-rest.ts), with a rename in the same record so
   * the oracle sees it: bound to a connection, every document it holds failed. From then on it
   * is folded after every record and given its rest file, until a document added wakes it.
   */
  async #finish(handle: object, id: string): Promise<void> {
    // Its documents from their digests: nothing is read, so this record is called in turn.
    const documents = this.#work.store.contracts(id);
    const name = this.#name('rested');
    await this.#record(
      handle,
      id,
      [{ kind: 'renamed', name }],
      [
        { type: 'connection_bound', baseUrl: 'https://signing.example.com', clientId: 'desk' },
        ...documents.map(({ documentId }) => ({
          type: 'item_failed' as const,
          documentId,
          error: {
            code: 'invalid_pdf' as const,
            message: 'refused',
            retryable: false,
            at: '2026-01-05T09:00:00.000Z',
          },
        })),
        { type: 'batch_renamed', name },
      ],
    );
  }

  /** A few steps of records, each step several at once so they share fsyncs (group commit). */
  async records(handle: object, id: string): Promise<void> {
    const { plan } = this.#work;
    const steps = 1 + Math.floor(plan() * 4);
    for (let step = 0; step < steps; step += 1) {
      await together(1 + Math.floor(plan() * 3), () => {
        const draw = plan();
        if (draw < 0.2) return this.#addDocuments(handle, id);
        if (draw < 0.45) return this.#finish(handle, id);
        return draw < 0.57 ? this.#addDocument(handle, id) : this.#rename(handle, id);
      });
    }
  }

  async createAndRecord(): Promise<void> {
    const { expectations, store } = this.#work;
    const name = this.#name('batch');
    const handle = expectations.creating(name);
    const batch = await store.create(name, { defaultRecipients: [] });
    expectations.created(handle, batch.id);
    await this.records(handle, batch.id);
  }

  async recordAndDelete(handle: object, id: string): Promise<void> {
    if (this.#work.plan() < 0.5) await this.records(handle, id);
    this.#work.expectations.deleting(handle);
    await this.#work.store.delete(id);
    this.#work.expectations.deleted(handle);
  }
}

/**
 * One round of concurrent work on a store: records (renames, documents whose PDF is taken in
 * first, alone or several at once, and batches brought to rest) on every batch, often a new batch, sometimes a deletion; compactions follow from the
 * store's small threshold. Answers the failures of the work itself (after a crash, all of it).
 */
export async function runWorkload(work: Workload): Promise<unknown[]> {
  const round = new Round(work);
  const { plan } = work;
  const live = work.expectations.live();
  const doomed = live.length > 0 && plan() < 0.4 ? pick(plan, live) : undefined;
  const actors = live.map(({ id, expectation }) =>
    expectation === doomed?.expectation
      ? round.recordAndDelete(expectation, id)
      : round.records(expectation, id),
  );
  if (live.length < 4 && plan() < 0.7) actors.push(round.createAndRecord());
  const results = await Promise.allSettled(actors);
  const failures = results.flatMap((result) =>
    result.status === 'rejected' ? [result.reason as unknown] : [],
  );
  await work.store.close().catch((error: unknown) => failures.push(error));
  return failures;
}
