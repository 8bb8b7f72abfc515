/**
 * What a data folder still remembers of the batches it deleted: each contract that the service
 * holds, or may hold, a request for (its service, reference, PDF and request, when known).
 * Deleting a batch stops tracking it here, not the requests at the service; if the same
 * contract is added again later, the data folder's answer to "does the service already hold a
 * request for this reference?" must still be yes (contract-registry.ts). Kept in a journal of
 * its own (`deleted-contracts/`), durable before the batch's folder goes.
 */
import { join } from 'node:path';
import { err, ok, type Result } from '../../shared/base/result';
import type { ConnectionAddress } from '../domain/batch-connection';
import type { FileSystem } from './file-system';
import { JournalWriter, loadJournal, type JournalDamage } from './journal';

/** A contract of a deleted batch that its service holds, or may hold, a request for. */
export interface DeletedContract {
  readonly batchId: string;
  readonly batchName: string;
  /** The connection the batch was sent with; undefined for a batch of an earlier version (anywhere). */
  readonly connection: ConnectionAddress | undefined;
  readonly documentId: string;
  readonly reference: string;
  readonly sha256: string;
  readonly fileName: string;
  readonly requestId: string | undefined;
  /** When the batch was deleted (ISO 8601). */
  readonly deletedAt: string;
}

interface ContractsDeleted {
  readonly type: 'contracts_deleted';
  readonly contracts: readonly Omit<DeletedContract, 'deletedAt'>[];
}

const FOLDER = 'deleted-contracts';

/** The record of deleted contracts of one data folder. */
export class DeletedContracts {
  readonly #contracts: DeletedContract[];
  /** Opens its folder's writer the first time a batch is deleted (a data folder that never deletes has no folder). */
  readonly #openWriter:
    (() => Promise<JournalWriter<readonly DeletedContract[], ContractsDeleted>>) | undefined;
  #writer: Promise<JournalWriter<readonly DeletedContract[], ContractsDeleted>> | undefined;
  readonly #now: () => number;

  private constructor(
    contracts: DeletedContract[],
    openWriter: (() => Promise<JournalWriter<readonly DeletedContract[], ContractsDeleted>>) | undefined,
    now: () => number,
  ) {
    this.#contracts = contracts;
    this.#openWriter = openWriter;
    this.#now = now;
  }

  /**
   * Opens the record under `root` (the batches' folder). Damage is reported, never hidden: a
   * record that cannot be read is returned as such, so that the caller refuses to forget.
   */
  static async open(
    root: string,
    fs: FileSystem,
    options: { readonly readOnly: boolean; readonly now: () => number },
  ): Promise<Result<DeletedContracts, JournalDamage>> {
    const folder = join(root, '..', FOLDER);
    const loaded = await loadJournal<readonly DeletedContract[], ContractsDeleted>(folder, fs).catch(
      (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      },
    );
    if (loaded && !loaded.ok) return err(loaded.error);
    const journal = loaded?.value;
    const contracts: DeletedContract[] = [...(journal?.snapshot?.state ?? [])];
    for (const entry of journal?.entries ?? [])
      for (const contract of entry.event.contracts) contracts.push({ ...contract, deletedAt: entry.at });
    const openWriter = options.readOnly
      ? undefined
      : () => JournalWriter.open<readonly DeletedContract[], ContractsDeleted>(folder, journal, { fs });
    return ok(new DeletedContracts(contracts, openWriter, options.now));
  }

  /** Every contract of a deleted batch, oldest first. */
  list(): readonly DeletedContract[] {
    return this.#contracts;
  }

  /** Remembers these contracts, durably: resolves once they survive a power cut. */
  async remember(contracts: readonly Omit<DeletedContract, 'deletedAt'>[]): Promise<void> {
    if (contracts.length === 0) return;
    if (!this.#openWriter) throw new Error('the record of deleted contracts is read-only');
    this.#writer ??= this.#openWriter();
    // A writer that could not open is tried again next time.
    const writer = await this.#writer.catch((error: unknown) => {
      this.#writer = undefined;
      throw error;
    });
    const at = new Date(this.#now());
    const [entry] = await writer.append([{ type: 'contracts_deleted', contracts }], at);
    for (const contract of contracts)
      this.#contracts.push({ ...contract, deletedAt: entry?.at ?? at.toISOString() });
  }

  async close(): Promise<void> {
    const writer = await this.#writer?.catch(() => undefined);
    await writer?.close();
  }
}
