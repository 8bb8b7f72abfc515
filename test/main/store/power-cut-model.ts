import { createHash } from 'node:crypto';
import type { BatchState } from '../../../main/domain/batch-state';
import type { BatchStore } from '../../../main/store/batch-store';
import type { BlobStore } from '../../../main/store/blob-store';

/** One change appended to a batch, in the order `record` was called, and whether it was acknowledged. */
export interface LoggedChange {
  readonly kind: 'created' | 'renamed' | 'document';
  /** The batch's name after a creation or a rename. */
  readonly name?: string;
  readonly documentId?: string;
  /** True for the last change of its `record` call: a record is kept whole or not at all. */
  readonly endsRecord: boolean;
  acknowledged: boolean;
}

/** What a batch must hold after a crash, from what its store acknowledged. */
interface BatchExpectation {
  /** Unknown while its creation has not resolved (the store draws it). */
  id: string | undefined;
  /** What a store loaded at an open that resolved: durable from then on. */
  baseline:
    | {
        readonly name: string;
        readonly documents: readonly string[];
        /** Every name the batch had before, to tell a lost rename from a name never given. */
        readonly earlierNames: readonly string[];
      }
    | undefined;
  /** Changes appended since the baseline. */
  log: LoggedChange[];
  deleteStarted: boolean;
  deleteAcknowledged: boolean;
}

function lastName(baseline: string | undefined, changes: readonly LoggedChange[]): string | undefined {
  return changes.filter((change) => change.name !== undefined).at(-1)?.name ?? baseline;
}

function describe(expectation: BatchExpectation): string {
  const log = expectation.log.map(
    (change) => `${change.documentId ?? change.name}${change.acknowledged ? '(ack)' : ''}`,
  );
  const baseline = expectation.baseline
    ? `baseline ${expectation.baseline.name} [${expectation.baseline.documents.join(' ')}]`
    : 'no baseline';
  return `${expectation.id ?? 'uncreated'}: ${baseline}; appended since: ${log.join(' ')}`;
}

/**
 * The power-cut suite's oracle. Workloads tell it what they append and what was acknowledged;
 * `verify` checks a store just opened after a crash: every acknowledged change present, in
 * order, followed by some prefix of the unacknowledged ones (the journal is written in call
 * order) that ends with a whole record (one `record` call is kept whole or not at all), nothing
 * else, and every loaded document's PDF copy intact.
 */
export class StoreExpectations {
  #batches: BatchExpectation[] = [];
  /** Ids of batches that were deleted or never durably created: they must never come back. */
  #gone = new Set<string>();

  /** A deep copy, so that a dry run can use it and leave this one as it was. */
  clone(): StoreExpectations {
    const copy = new StoreExpectations();
    copy.#batches = structuredClone(this.#batches);
    copy.#gone = new Set(this.#gone);
    return copy;
  }

  /** Batches present at the last open, in a stable order: the workload's targets. */
  live(): { readonly id: string; readonly expectation: object }[] {
    return this.#batches.flatMap((batch) =>
      batch.id && !batch.deleteStarted ? [{ id: batch.id, expectation: batch }] : [],
    );
  }

  /** A creation about to be called; answers the handle later calls name it by. */
  creating(name: string): object {
    const batch: BatchExpectation = {
      id: undefined,
      baseline: undefined,
      log: [{ kind: 'created', name, endsRecord: true, acknowledged: false }],
      deleteStarted: false,
      deleteAcknowledged: false,
    };
    this.#batches.push(batch);
    return batch;
  }

  created(handle: object, id: string): void {
    const batch = handle as BatchExpectation;
    batch.id = id;
    batch.log[0]!.acknowledged = true;
  }

  /** Changes about to be recorded, in this call's order; acknowledge them when `record` resolves. */
  appending(
    handle: object,
    changes: readonly Omit<LoggedChange, 'acknowledged' | 'endsRecord'>[],
  ): LoggedChange[] {
    const logged = changes.map((change, index) => ({
      ...change,
      endsRecord: index === changes.length - 1,
      acknowledged: false,
    }));
    (handle as BatchExpectation).log.push(...logged);
    return logged;
  }

  acknowledged(changes: readonly LoggedChange[]): void {
    for (const change of changes) change.acknowledged = true;
  }

  deleting(handle: object): void {
    (handle as BatchExpectation).deleteStarted = true;
  }

  deleted(handle: object): void {
    (handle as BatchExpectation).deleteAcknowledged = true;
  }

  /**
   * Checks a store just opened (`every` batch as its disk holds it, read whole by another
   * process, its blobs read through `blobs`), answers what is wrong, and
   * takes what it loaded as the new durable baseline: the store may act on it from now on.
   */
  async verify(store: BatchStore, every: readonly BatchState[], blobs: BlobStore): Promise<string[]> {
    const failures: string[] = [];
    for (const { batchId, damage } of store.loadReport.damaged) {
      failures.push(
        `damaged journal: batch ${batchId} does not load: ${damage.problem} (${damage.file}:${damage.line ?? '-'})`,
      );
    }
    // What the store says of each batch without reading it (a batch at rest: from its rest file).
    const outlines = new Map(store.outlines().map((outline) => [outline.id, outline]));
    for (const state of every) {
      const outline = outlines.get(state.id);
      if (outline?.name !== state.name || outline.documentCount !== state.documents.length)
        failures.push(
          `outline says ${outline?.name} with ${outline?.documentCount} documents, the batch holds ${state.name} with ${state.documents.length}`,
        );
    }
    const loaded = new Map(every.map((state) => [state.id, state]));
    const kept: BatchExpectation[] = [];
    for (const batch of this.#batches) {
      const creationName = batch.baseline ? undefined : batch.log[0]?.name;
      const state =
        batch.id !== undefined
          ? loaded.get(batch.id)
          : [...loaded.values()].find(
              (candidate) => candidate.name === creationName && !this.#known(candidate.id),
            );
      if (!state) {
        const mustExist = batch.baseline !== undefined || batch.log.some((change) => change.acknowledged);
        if (mustExist && !batch.deleteStarted)
          failures.push(`acknowledged batch vanished: ${describe(batch)}`);
        if (batch.id !== undefined) this.#gone.add(batch.id);
        continue;
      }
      loaded.delete(state.id);
      batch.id = state.id;
      if (batch.deleteAcknowledged) failures.push(`deleted batch came back: ${describe(batch)}`);
      const problem = this.#mismatch(batch, state);
      if (problem) failures.push(problem);
      kept.push(batch);
    }
    for (const state of loaded.values()) {
      failures.push(
        `${this.#gone.has(state.id) ? 'vanished batch came back' : 'batch never created appeared'}: ${state.id} (${state.name})`,
      );
    }
    for (const state of every) failures.push(...(await this.#checkBlobs(state, blobs)));
    this.#batches = kept.map((batch) => {
      const state = every.find((candidate) => candidate.id === batch.id)!;
      const earlierNames = [
        ...(batch.baseline ? [...batch.baseline.earlierNames, batch.baseline.name] : []),
        ...batch.log.flatMap((change) => (change.name === undefined ? [] : [change.name])),
      ];
      return {
        id: state.id,
        baseline: {
          name: state.name,
          documents: state.documents.map((document) => document.draft.id),
          earlierNames,
        },
        log: [],
        deleteStarted: false,
        deleteAcknowledged: false,
      };
    });
    return failures;
  }

  #known(id: string): boolean {
    return this.#gone.has(id) || this.#batches.some((batch) => batch.id === id);
  }

  /** Undefined when the state is the baseline plus some prefix of whole records of the log covering every acknowledged change. */
  #mismatch(batch: BatchExpectation, state: BatchState): string | undefined {
    const documents = state.documents.map((document) => document.draft.id).join(' ');
    const matches = (kept: number): boolean => {
      const changes = batch.log.slice(0, kept);
      const expected = [
        ...(batch.baseline?.documents ?? []),
        ...changes.flatMap((change) => (change.documentId ? [change.documentId] : [])),
      ];
      return state.name === lastName(batch.baseline?.name, changes) && expected.join(' ') === documents;
    };
    const lastAcknowledged = batch.log.findLastIndex((change) => change.acknowledged);
    // A loaded batch holds its creation at least.
    const shortest = batch.baseline ? 0 : 1;
    const wholeRecords = (kept: number): boolean => kept === 0 || batch.log[kept - 1]!.endsRecord;
    const found = [...Array(batch.log.length + 1).keys()].filter(
      (kept) => kept >= shortest && wholeRecords(kept) && matches(kept),
    );
    if (found.some((kept) => kept > lastAcknowledged)) return undefined;
    const held = `holds name ${state.name} and documents [${documents}]`;
    const { baseline } = batch;
    const olderDocuments = baseline !== undefined && baseline.documents.join(' ').startsWith(documents);
    const olderName =
      baseline !== undefined && (state.name === baseline.name || baseline.earlierNames.includes(state.name));
    if (olderDocuments && olderName) {
      return `change loaded at an earlier open lost: the batch ${held}; ${describe(batch)}`;
    }
    return found.length > 0
      ? `acknowledged change lost: the batch ${held}, without changes acknowledged since; ${describe(batch)}`
      : `half a record, a change never appended, or out of order: the batch ${held}; ${describe(batch)}`;
  }

  async #checkBlobs(state: BatchState, blobs: BlobStore): Promise<string[]> {
    const failures: string[] = [];
    for (const { draft } of state.documents) {
      const { sha256 } = draft.pdf;
      if (!(await blobs.has(sha256))) {
        failures.push(`PDF copy missing: document ${draft.id} of batch ${state.id} needs ${sha256}`);
        continue;
      }
      const hash = createHash('sha256');
      for await (const chunk of blobs.openRead(sha256)) hash.update(chunk as Buffer);
      const digest = hash.digest('hex');
      if (digest !== sha256)
        failures.push(`PDF copy corrupt: ${sha256} of document ${draft.id} holds ${digest}`);
    }
    return failures;
  }
}
