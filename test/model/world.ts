/**
 * The world a model-based test plays in (README "Sending exactly once", "Generated histories"): one
 * service (the simulator, in a variant the spec allows), folders of contracts on this computer's
 * disk that a person sends, moves, copies and edits, and desks (data folders) on a page-cache model
 * of a disk that can be killed or lose power at any operation. Every action goes through the same
 * code as the command line's `send` (manifestTarget, takeManifestIn, the send engine); the promises
 * are checked after each one (promises.ts). A ledger keeps what the person did on purpose. The
 * service and every desk are on one virtual clock: backoffs, the read spacing and hours between two
 * things a person does pass at once, in order.
 */
import { cpSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BatchState, DocumentState } from '../../main/domain/batch-state';
import { checkManifest } from '../../main/manifest/manifest';
import type { Connection } from '../../main/credentials/connection';
import { openDesk, type Desk } from '../../main/app/desk-core';
import { findManifestBatch, manifestTarget, takeManifestIn } from '../../main/cli/manifest-batch';
import { Secret } from '../../main/base/secret';
import type { VirtualClock } from '../../main/time/virtual-clock';
import { createSeededRandom } from '../../simulator/seeded-random';
import { DEMO_CLIENT, type Simulator } from '../../simulator/simulator';
import { keyRetentionMs, type ServiceVariant } from '../../simulator/variants';
import { CrashFileSystem } from '../support/crash-fs';
import { makeTempFolder, type TempFolder } from '../support/pdf-files';
import { writeContractManifest } from '../main/cli/cli-fixtures';
import { startVirtualSimulator } from '../support/virtual-world';
import { everyBatch } from '../support/every-batch';

/** A folder holding a manifest and its PDFs, where the person keeps it now. */
export interface ContractFolder {
  readonly name: string;
  /** The folder on disk, and the manifest's file name in it. */
  path: string;
  manifest: string;
}

/** One data folder (a desk): its disk, and the desk open on it, if any. */
export interface DeskSlot {
  readonly name: string;
  fs: CrashFileSystem;
  desk: Desk | undefined;
  /** How long this desk assumes the service keeps keys (hours): stated by its person, or the default. */
  readonly retentionHours: number | undefined;
  /** Kills and power cuts this desk went through. */
  disruptions: number;
}

/** How a send is cut short, if at all. */
export type Interruption =
  | { readonly kind: 'none' }
  /** The person pauses after this many progress events. */
  | { readonly kind: 'pause'; readonly after: number }
  /** The process is killed (page cache kept), or the power cut, at this file-system operation. */
  | { readonly kind: 'kill' | 'cut'; readonly after: number }
  /**
   * The service creates requests and their answers are lost (the line drops right after it
   * acted), and the person pauses as soon as the app says it waits: outcomes stay unknown
   * until a later send, perhaps hours later.
   */
  | { readonly kind: 'lost' }
  /** The person pauses the moment a creation is answered (before its id is learnt, or used). */
  | { readonly kind: 'answered' };

/** What the person did on purpose, and what the app told them. */
export interface Ledger {
  /** Sends anew on purpose, by reference: each may add one request. */
  readonly anew: Map<string, number>;
  /** "May now have two requests" checks the app raised, by reference: each may stand for one more. */
  readonly alarms: Map<string, number>;
  /** Checks already counted (desk/document/time). */
  readonly seenChecks: Set<string>;
  /** Keys whose requests the person let go (sent anew on purpose): no document need know them. */
  readonly releasedKeys: Set<string>;
  /**
   * Per request, whether the desk that made it could not have known the earlier ones of its
   * reference when it was made (judged at the first check after it appeared, before a person
   * could link it anywhere): the README's stated limit across data folders.
   */
  readonly bornUnwarned: Map<string, boolean>;
  /** Faults of the line in force (drops): an outcome may be unknown without the attempt arriving. */
  lineFaults: boolean;
  /** What happened, for the failure message. */
  readonly log: string[];
}

const CREATE_OR_PARTICIPANT = '^/api/v1/signing-requests(/[^/]+/participants)?$';

export class World {
  readonly sim: Simulator;
  /** The world's one clock: the service's and every desk's. */
  readonly clock: VirtualClock;
  readonly variant: ServiceVariant;
  readonly random: () => number;
  readonly folders: ContractFolder[] = [];
  readonly desks: DeskSlot[] = [];
  readonly ledger: Ledger = {
    anew: new Map(),
    alarms: new Map(),
    seenChecks: new Set(),
    releasedKeys: new Set(),
    bornUnwarned: new Map(),
    lineFaults: false,
    log: [],
  };
  /** The apps track their requests (pollers run while a desk is open), as the app does; off at first. */
  tracking = false;
  /** The promises of batches at rest are checked after each step too (rest-promises.ts). */
  checksRest = false;
  readonly #root: TempFolder;

  private constructor(
    sim: Simulator,
    clock: VirtualClock,
    variant: ServiceVariant,
    seed: number,
    root: TempFolder,
  ) {
    this.sim = sim;
    this.clock = clock;
    this.variant = variant;
    this.random = createSeededRandom(seed);
    this.#root = root;
  }

  /** A service of `variant`, one folder of `documents` contracts, one desk. */
  static async create(variant: ServiceVariant, seed: number, documents = 3): Promise<World> {
    // Uploads live a day, or (a service that keeps them shorter than its keys) an hour.
    const { sim, clock } = await startVirtualSimulator({
      seed,
      variant,
      uploadTtlHours: seed % 4 === 0 ? 1 : 24,
    });
    const root = makeTempFolder('desk-model-');
    const world = new World(sim, clock, variant, seed, root);
    await world.addFolder('Contracts', 'C-', documents, seed);
    world.addDesk();
    return world;
  }

  /** A new folder of `documents` contracts whose references start with `prefix`. */
  async addFolder(
    name: string,
    prefix: string,
    documents: number,
    seed = Math.floor(this.random() * 1e9),
  ): Promise<ContractFolder> {
    const folder: TempFolder = {
      path: join(this.#root.path, name),
      file: (file) => join(this.#root.path, name, file),
      remove: () => undefined,
    };
    mkdirSync(folder.path);
    await writeContractManifest(folder, { count: documents, pages: 0, seed, referencePrefix: prefix });
    const added = { name, path: folder.path, manifest: 'manifest.csv' };
    this.folders.push(added);
    return added;
  }

  /** A new data folder (another desk, or the same computer reinstalled); at most two. */
  addDesk(): DeskSlot {
    const retention = keyRetentionMs(this.variant);
    // Half the desks were told how long the service keeps keys; the others assume the default.
    const stated = Number.isFinite(retention) && this.random() < 0.5 ? retention / 3_600_000 : undefined;
    const slot: DeskSlot = {
      name: `desk-${this.desks.length + 1}`,
      fs: new CrashFileSystem({ scheduling: createSeededRandom(Math.floor(this.random() * 1e9)) }),
      desk: undefined,
      retentionHours: stated,
      disruptions: 0,
    };
    this.desks.push(slot);
    return slot;
  }

  connectionOf(slot: DeskSlot): Connection {
    return {
      baseUrl: this.sim.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      clientSecret: new Secret(DEMO_CLIENT.clientSecret),
      ...(slot.retentionHours === undefined ? {} : { keyRetentionHours: slot.retentionHours }),
    };
  }

  /** The desk on `slot`, opened (the app started) if it is not. */
  async open(slot: DeskSlot): Promise<Desk> {
    if (slot.desk) return slot.desk;
    const opening = await openDesk({
      dataDir: '/data',
      fs: slot.fs,
      connection: this.connectionOf(slot),
      clock: this.clock,
      retry: { baseDelayMs: 1, maxDelayMs: 8, maxAttempts: 4, maxRetryAfterMs: 5_000 },
      engineWaitMs: { first: 5, longest: 40 },
      reuploadBackoffMs: 5,
      replayForIdMs: 10,
      drainMs: 5_000,
      concurrency: 2,
    });
    if (!opening.ok) throw new Error(opening.error);
    if (opening.value.store.loadReport.damaged.length > 0)
      throw new Error(
        `${slot.name}: a batch cannot be read: ${JSON.stringify(opening.value.store.loadReport.damaged)}`,
      );
    slot.desk = opening.value;
    if (this.tracking) opening.value.poller.start();
    // The app started a moment ago: its client holds its first reads for the read spacing
    // (another process may have just read), which the world's clock lets pass.
    await this.pass(6_000);
    return opening.value;
  }

  /** Every document of every desk that is open or can be opened, with its desk and batch. */
  async documents(): Promise<{ slot: DeskSlot; batch: BatchState; document: DocumentState }[]> {
    const found: { slot: DeskSlot; batch: BatchState; document: DocumentState }[] = [];
    for (const slot of this.desks) {
      const desk = await this.open(slot);
      for (const batch of await everyBatch(desk.store))
        for (const document of batch.documents) found.push({ slot, batch, document });
    }
    return found;
  }

  /** Time passes between two things a person does (and the service's 5 s read spacing with it). */
  async pass(ms: number): Promise<void> {
    await this.clock.advance(ms);
  }

  /** Lets the world's time run until `work` (a send, a close) has ended; what it gives. */
  complete<T>(work: Promise<T>): Promise<T> {
    return this.clock.complete(work, { withinMs: 30 * 24 * 3_600_000 });
  }

  /** The line drops calls before or after the service acts, at these rates, or is calm again. */
  weather(drops: number, rate503: number): void {
    this.ledger.lineFaults ||= drops > 0;
    this.sim.faults.set({
      dropBeforeRate: drops,
      dropAfterRate: drops,
      rate503,
      pathPattern: CREATE_OR_PARTICIPANT,
    });
  }

  /**
   * `send MANIFEST` from `slot`, as the command line runs it (with `--continue-batch` or
   * `--send-new --confirm` when asked), possibly cut short.
   */
  async send(
    folder: ContractFolder,
    slot: DeskSlot,
    options: { readonly continueBatch: boolean; readonly sendNew: boolean },
    interruption: Interruption,
  ): Promise<string> {
    const desk = await this.open(slot);
    const manifestPath = join(folder.path, folder.manifest);
    const check = await checkManifest(manifestPath);
    if (check.issues.length > 0)
      throw new Error(`the model wrote a bad manifest: ${JSON.stringify(check.issues)}`);
    const connection = this.connectionOf(slot);
    const target = manifestTarget(
      await findManifestBatch(desk.store, connection, manifestPath, check.documents),
      options,
    );
    if (target.kind === 'held' || target.kind === 'several') return `refused (${target.kind})`;
    if (target.kind === 'new') for (const reference of target.anew) this.#countAnew(reference);
    if (interruption.kind === 'kill') slot.fs.crashAfterOperations(interruption.after);
    if (interruption.kind === 'cut') slot.fs.cutAfterOperations(interruption.after, this.random);
    let outcome: string;
    try {
      const { batch } = await takeManifestIn(desk, target, connection, manifestPath, check.documents);
      for (const document of batch.documents)
        if (document.send.error) await this.complete(desk.engine.retry(batch.id, document.draft.id));
      outcome = await this.#run(desk, batch.id, interruption);
    } catch (error) {
      if (!slot.fs.dead) throw error;
      outcome = `died (${(error as Error).message.slice(0, 40)})`;
    }
    if (interruption.kind === 'kill' || interruption.kind === 'cut')
      await this.restartAfter(slot, interruption.kind);
    return outcome;
  }

  /**
   * The app: each folder's manifest imported as a new batch and sent, all at once, without the
   * command line's question about batches that hold its contracts (the review is a snapshot;
   * the engine asks the data folder again before each key is made).
   */
  async importInApp(folders: readonly ContractFolder[], slot: DeskSlot): Promise<string> {
    const desk = await this.open(slot);
    const connection = this.connectionOf(slot);
    const batches: string[] = [];
    for (const folder of folders) {
      const manifestPath = join(folder.path, folder.manifest);
      const check = await checkManifest(manifestPath);
      if (check.issues.length > 0)
        throw new Error(`the model wrote a bad manifest: ${JSON.stringify(check.issues)}`);
      const { batch } = await takeManifestIn(
        desk,
        { kind: 'new', anew: [] },
        connection,
        manifestPath,
        check.documents,
      );
      batches.push(batch.id);
    }
    const summaries = await this.complete(Promise.all(batches.map((batchId) => desk.engine.send(batchId))));
    return summaries
      .map(
        (summary) =>
          `${summary.state}: ${summary.prepared} prepared, ${summary.needsCheck} check, ${summary.failed} failed`,
      )
      .join(' | ');
  }

  /** Continues a batch (after the person answered a check), possibly cut short. */
  async resume(slot: DeskSlot, batchId: string, interruption: Interruption): Promise<string> {
    const desk = await this.open(slot);
    if (interruption.kind === 'kill') slot.fs.crashAfterOperations(interruption.after);
    if (interruption.kind === 'cut') slot.fs.cutAfterOperations(interruption.after, this.random);
    let outcome: string;
    try {
      outcome = await this.#run(desk, batchId, interruption);
    } catch (error) {
      if (!slot.fs.dead) throw error;
      outcome = 'died';
    }
    if (interruption.kind === 'kill' || interruption.kind === 'cut')
      await this.restartAfter(slot, interruption.kind);
    return outcome;
  }

  async #run(desk: Desk, batchId: string, interruption: Interruption): Promise<string> {
    let events = 0;
    if (interruption.kind === 'lost') {
      this.ledger.lineFaults = true;
      this.sim.faults.enqueue(
        ...Array.from({ length: 8 }, () => ({
          kind: 'dropAfter' as const,
          pathPattern: '^/api/v1/signing-requests$',
        })),
      );
    }
    const unfollow = desk.store.subscribe((_state, recorded) => {
      if (
        interruption.kind === 'answered' &&
        recorded.some(
          (event) => event.type === 'create_answered_without_id' || event.type === 'request_created',
        )
      )
        desk.engine.pause(batchId);
    });
    const unsubscribe = desk.engine.subscribe((event) => {
      if (interruption.kind === 'lost' && event.type === 'engine-state' && event.state === 'waiting')
        desk.engine.pause(batchId);
      if (interruption.kind !== 'pause' || event.type !== 'item-progress') return;
      events += 1;
      if (events === interruption.after) desk.engine.pause(batchId);
    });
    try {
      const summary = await this.complete(desk.engine.send(batchId));
      return `${summary.state}: ${summary.prepared} prepared, ${summary.needsCheck} check, ${summary.failed} failed`;
    } finally {
      unsubscribe();
      unfollow();
    }
  }

  /**
   * The process was killed or the power cut (when the send ended first, it happens now): the
   * desk's calls on their way reach the service or not, and the next start sees what the disk
   * kept.
   */
  async restartAfter(slot: DeskSlot, kind: 'kill' | 'cut'): Promise<void> {
    const desk = slot.desk;
    slot.desk = undefined;
    slot.disruptions += 1;
    const fs = slot.fs;
    if (!fs.dead) {
      if (kind === 'cut') fs.powerCut(this.random);
      else fs.crashProcess();
    }
    // Its engine stops at its next write; what it had on the wire arrives, then its connections close.
    if (desk) {
      await this.complete(desk.engine.close()).catch(() => undefined);
      await this.complete(desk.client.close()).catch(() => undefined);
    }
    slot.fs =
      kind === 'cut'
        ? new CrashFileSystem({ image: fs.cutImage ?? fs.imageAfterPowerCut(this.random) })
        : new CrashFileSystem({}, fs.disk);
  }

  /** The person quits the app normally. */
  async quit(slot: DeskSlot): Promise<void> {
    const desk = slot.desk;
    slot.desk = undefined;
    if (desk) await this.complete(desk.close());
  }

  /** Renames a folder, or its manifest file. */
  move(folder: ContractFolder, what: 'folder' | 'manifest'): void {
    if (what === 'folder') {
      const to = join(this.#root.path, `${folder.name} (moved ${this.ledger.log.length})`);
      renameSync(folder.path, to);
      folder.path = to;
    } else {
      const to = `manifest ${this.ledger.log.length}.csv`;
      renameSync(join(folder.path, folder.manifest), join(folder.path, to));
      folder.manifest = to;
    }
  }

  /** Copies a folder (a second working copy, a backup restored next to the original). */
  copy(folder: ContractFolder): ContractFolder {
    const name = `${folder.name} - copy ${this.folders.length}`;
    const path = join(this.#root.path, name);
    cpSync(folder.path, path, { recursive: true });
    const copied = { name, path, manifest: folder.manifest };
    this.folders.push(copied);
    return copied;
  }

  /** Edits one recipient's name in a folder's manifest (a typo fixed in the spreadsheet). */
  edit(folder: ContractFolder, row: number): void {
    const path = join(folder.path, folder.manifest);
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    const index = 1 + (row % (lines.length - 1));
    lines[index] = (lines[index] ?? '').replace(/(Employee|Payroll officer) (\d+)/, '$1 $2 (edited)');
    writeFileSync(path, `${lines.join('\n')}\n`);
  }

  #countAnew(reference: string): void {
    this.ledger.anew.set(reference, (this.ledger.anew.get(reference) ?? 0) + 1);
  }

  /** The person sends a document anew on purpose (after the warning). */
  async sendAnew(slot: DeskSlot, batch: BatchState, document: DocumentState): Promise<boolean> {
    const desk = await this.open(slot);
    const key = document.send.create?.idempotencyKey;
    const answer = await this.complete(desk.engine.sendAsNew(batch.id, document.draft.id));
    if (!answer.ok) return false;
    this.#countAnew(document.draft.externalReference);
    if (key) this.ledger.releasedKeys.add(key);
    return true;
  }

  async dispose(): Promise<void> {
    for (const slot of this.desks) {
      if (slot.desk) await this.complete(slot.desk.close()).catch(() => undefined);
      slot.desk = undefined;
    }
    await this.sim.close();
    this.#root.remove();
  }
}
