/**
 * What people and the world do to batches that come to rest and back (main/domain/batch-rest.ts),
 * as fast-check commands over the World (world.ts), added to actions.ts: tracking that brings
 * batches to rest (and a power cut or a kill while it does), requests that vanish from the
 * service for good or for one read, "check again" on them, a new contract in a folder whose
 * batch rests, a failed document tried again, a batch renamed or deleted, and rest files left
 * stale, truncated or swapped between batches while the app is closed.
 */
import fc from 'fast-check';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classOf } from '../../main/domain/document-class';
import type { BatchState, DocumentState } from '../../main/domain/batch-state';
import { writeFileAtomic } from '../../main/store/durable-fs';
import { makePdfBytes } from '../support/pdf-files';
import { everyBatch } from '../support/every-batch';
import type { Counts } from './actions';
import { stageOfRequest } from './promises';
import { isFinalStage } from '../../shared/service/status';
import type { DeskSlot, Interruption, World } from './world';

type Action = fc.AsyncCommand<Counts, World, false>;
type Step = (world: World, label: string, act: () => Promise<string | void>) => Promise<void>;

const pick = <T>(items: readonly T[], index: number): T => items[index % items.length] as T;
const BATCHES = '/data/batches';

/** Every document of every desk in `which` class, with its desk and batch. */
async function documentsIn(
  world: World,
  documentClass: string,
): Promise<{ slot: DeskSlot; batch: BatchState; document: DocumentState }[]> {
  const found: { slot: DeskSlot; batch: BatchState; document: DocumentState }[] = [];
  for (const slot of world.desks) {
    const desk = await world.open(slot);
    for (const batch of await everyBatch(desk.store))
      for (const document of batch.documents)
        if (classOf(document) === documentClass) found.push({ slot, batch, document });
  }
  return found;
}

/** The rest files of a desk's batches, by batch folder (the desk is closed to touch them). */
async function restFiles(slot: DeskSlot): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const entries = await slot.fs.readdir(BATCHES).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const path = join(BATCHES, entry.name, 'rest.json');
    const bytes = await slot.fs.readFile(path).catch(() => undefined);
    if (bytes) files.set(entry.name, bytes);
  }
  return files;
}

/** Rest files put aside by `Tamper('stash')`, per desk, to be put back later (a backup restored). */
const stashes = new WeakMap<DeskSlot, Map<string, Buffer>>();

/** Each kind of action, by name (rest.test.ts weighs them). */
export function restActions(step: Step, interruption: fc.Arbitrary<Interruption>) {
  /** Tracking on or off, then time passes with the apps open (statuses read, batches come to rest), possibly cut short. */
  class Track implements Action {
    constructor(
      readonly on: boolean,
      readonly minutes: number,
      readonly desk: number,
      readonly interruption: Interruption,
    ) {}
    check = () => true;
    async run(counts: Counts, world: World): Promise<void> {
      await step(world, this.toString(), async () => {
        world.tracking = this.on;
        for (const slot of world.desks) {
          const desk = await world.open(slot);
          if (this.on) desk.poller.start();
          else desk.poller.stop();
        }
        const slot = pick(world.desks, this.desk);
        const { kind } = this.interruption;
        if (kind === 'kill') slot.fs.crashAfterOperations(this.interruption.after);
        if (kind === 'cut') slot.fs.cutAfterOperations(this.interruption.after, world.random);
        await world.pass(this.minutes * 60_000);
        if (kind === 'kill' || kind === 'cut') await world.restartAfter(slot, kind);
      });
    }
    toString(): string {
      const cut = this.interruption.kind === 'kill' || this.interruption.kind === 'cut';
      return `tracking ${this.on ? 'on' : 'off'}, ${this.minutes} min${cut ? ` (${this.interruption.kind} on desk ${this.desk} after ${(this.interruption as { after: number }).after})` : ''}`;
    }
  }

  /** Signers sign every request waiting for them (or one declines): batches finish, and come to rest once read. */
  class SignAll implements Action {
    constructor(readonly declined: number | undefined) {}
    check = () => true;
    async run(counts: Counts, world: World): Promise<void> {
      await step(world, this.toString(), async () => {
        const signable = world.sim.state
          .requests()
          .filter(
            (request) =>
              request.preparedAt !== null &&
              (request.status === 'prepared' || request.status === 'in_progress'),
          );
        signable.forEach((request, at) => {
          if (this.declined !== undefined && at === this.declined % signable.length)
            world.sim.setStatus(request.id, { status: 'declined' });
          else world.sim.complete(request.id);
        });
        return `${signable.length} signed or declined`;
      });
    }
    toString(): string {
      return `sign all${this.declined === undefined ? '' : ` (request ${this.declined} declined)`}`;
    }
  }

  /** A prepared request vanishes from the service: for good, or for its next read only (a 404 from its own service). */
  class Vanish implements Action {
    constructor(
      readonly request: number,
      readonly how: 'forget' | 'blip',
    ) {}
    check = () => true;
    async run(counts: Counts, world: World): Promise<void> {
      await step(world, this.toString(), async () => {
        // One still read by its desk, if any (a final one is read no more).
        const prepared = world.sim.state.requests().filter((request) => request.preparedAt !== null);
        const open = prepared.filter((request) => !isFinalStage(stageOfRequest(request)));
        if (prepared.length === 0) return 'no prepared request';
        const request = pick(open.length > 0 ? open : prepared, this.request);
        if (this.how === 'forget') world.sim.forget(request.id);
        else
          world.sim.faults.enqueue({
            kind: 'reject',
            status: 404,
            code: 'signing_request_not_found',
            pathPattern: `^/api/v1/signing-requests/${request.id}$`,
          });
        return `${request.externalReference} ${request.status}`;
      });
    }
    toString(): string {
      return `vanish(request ${this.request}, ${this.how})`;
    }
  }

  /** The service refuses the next uploads for a reason of its own: their documents fail (to be tried again). */
  class Refuse implements Action {
    constructor(readonly count: number) {}
    check = () => true;
    async run(counts: Counts, world: World): Promise<void> {
      await step(world, this.toString(), async () => {
        world.sim.faults.enqueue(
          ...Array.from({ length: this.count }, () => ({
            kind: 'reject' as const,
            status: 422,
            code: 'invalid_document',
            pathPattern: '^/api/v1/uploads$',
          })),
        );
      });
    }
    toString(): string {
      return `the next ${this.count} uploads refused`;
    }
  }

  /** "Check again" on a request its service said was gone. */
  class CheckAgain implements Action {
    constructor(readonly which: number) {}
    check = () => true;
    async run(counts: Counts, world: World): Promise<void> {
      await step(world, this.toString(), async () => {
        const gone = await documentsIn(world, 'gone');
        if (gone.length === 0) return 'nothing gone';
        const { slot, batch, document } = pick(gone, this.which);
        const desk = await world.open(slot);
        const outcome = await world.complete(desk.poller.checkAgain(batch.id, document.draft.id));
        return `${document.draft.externalReference}: ${outcome.found ? 'found' : outcome.message}`;
      });
    }
    toString(): string {
      return `check again(gone ${this.which})`;
    }
  }

  /** "Retry" on a failed document, whatever its batch (at rest when all its documents are final or failed). */
  class Retry implements Action {
    constructor(
      readonly which: number,
      readonly interruption: Interruption,
    ) {}
    check = () => true;
    async run(counts: Counts, world: World): Promise<void> {
      await step(world, this.toString(), async () => {
        const failed = await documentsIn(world, 'failed');
        if (failed.length === 0) return 'nothing failed';
        const { slot, batch, document } = pick(failed, this.which);
        const desk = await world.open(slot);
        await world.complete(desk.engine.retry(batch.id, document.draft.id));
        return `${document.draft.externalReference}: ${await world.resume(slot, batch.id, this.interruption)}`;
      });
    }
    toString(): string {
      return `retry(failed ${this.which}, ${this.interruption.kind})`;
    }
  }

  /** A new contract in a folder (a PDF and its row): the next send of its manifest adds it to its batch. */
  class AddContract implements Action {
    constructor(readonly folder: number) {}
    check = () => true;
    async run(counts: Counts, world: World): Promise<void> {
      await step(world, this.toString(), async () => {
        const folder = pick(world.folders, this.folder);
        const number = `X${world.ledger.log.length}`;
        const file = `contract-${number}.pdf`;
        writeFileSync(join(folder.path, file), await makePdfBytes(`Contract ${number}`, number));
        appendFileSync(
          join(folder.path, folder.manifest),
          `${file},C-${number},employment_contract,signer,Employee,Employee ${number},e.${number}@example.com,1,false,fr-FR\n`,
        );
        return `C-${number} in ${folder.name}`;
      });
    }
    toString(): string {
      return `add contract(folder ${this.folder})`;
    }
  }

  /** The person renames or deletes a batch (deleting stops tracking it; what it sent stays known). */
  class Change implements Action {
    constructor(
      readonly desk: number,
      readonly batch: number,
      readonly how: 'rename' | 'delete',
    ) {}
    check = () => true;
    async run(counts: Counts, world: World): Promise<void> {
      await step(world, this.toString(), async () => {
        const slot = pick(world.desks, this.desk);
        const desk = await world.open(slot);
        const outlines = desk.store.outlines();
        if (outlines.length === 0) return 'no batch';
        const outline = pick(outlines, this.batch);
        if (this.how === 'rename') {
          await world.complete(
            desk.store.record(outline.id, [{ type: 'batch_renamed', name: `${outline.name}'` }]),
          );
          return `${outline.name} renamed`;
        }
        if (desk.engine.isRunning(outline.id)) return 'being sent';
        const batch = await desk.store.open(outline.id);
        // Deleted on purpose: its requests are no longer tracked, nor known by a document.
        for (const document of batch?.documents ?? [])
          if (document.send.create) world.ledger.releasedKeys.add(document.send.create.idempotencyKey);
        await world.complete(desk.store.delete(outline.id));
        return `${outline.name} deleted`;
      });
    }
    toString(): string {
      return `${this.how}(desk ${this.desk}, batch ${this.batch})`;
    }
  }

  /**
   * While the app is closed, rest files are put aside, put back (stale by now), truncated, or
   * swapped between two batches; the next start must not take any of them for the truth.
   */
  class Tamper implements Action {
    constructor(
      readonly desk: number,
      readonly how: 'stash' | 'restore' | 'truncate' | 'swap',
      readonly which: number,
    ) {}
    check = () => true;
    async run(counts: Counts, world: World): Promise<void> {
      await step(world, this.toString(), async () => {
        const slot = pick(world.desks, this.desk);
        await world.quit(slot);
        const files = await restFiles(slot);
        const write = (batchId: string, bytes: Uint8Array) =>
          writeFileAtomic(join(BATCHES, batchId, 'rest.json'), bytes, slot.fs);
        switch (this.how) {
          case 'stash':
            stashes.set(slot, files);
            return `${files.size} put aside`;
          case 'restore': {
            const stash = stashes.get(slot) ?? new Map<string, Buffer>();
            const existing = new Set(
              (await slot.fs.readdir(BATCHES).catch(() => [])).map((entry) => entry.name),
            );
            let restored = 0;
            for (const [batchId, bytes] of stash)
              if (existing.has(batchId)) {
                await write(batchId, bytes);
                restored += 1;
              }
            return `${restored} put back`;
          }
          case 'truncate': {
            if (files.size === 0) return 'no rest file';
            const [batchId, bytes] = pick([...files], this.which);
            await write(batchId, bytes.subarray(0, Math.floor(bytes.length / 2)));
            return `${batchId.slice(0, 8)} cut`;
          }
          case 'swap': {
            if (files.size < 2) return 'fewer than two rest files';
            const all = [...files];
            const [from, bytes] = pick(all, this.which);
            const [to] = pick(all, this.which + 1);
            await write(to, bytes);
            return `${from.slice(0, 8)}'s into ${to.slice(0, 8)}`;
          }
        }
      });
    }
    toString(): string {
      return `rest files ${this.how}(desk ${this.desk}, ${this.which})`;
    }
  }

  const index = fc.nat({ max: 7 });
  return {
    signAll: fc.option(index, { nil: undefined }).map((declined) => new SignAll(declined)),
    track: fc
      .tuple(fc.boolean(), fc.constantFrom(1, 10, 90, 600), index, interruption)
      .map(([on, minutes, desk, cut]) => new Track(on || minutes > 1, minutes, desk, cut)),
    vanish: fc
      .tuple(index, fc.constantFrom('forget', 'blip'))
      .map(([request, how]) => new Vanish(request, how as Vanish['how'])),
    checkAgain: index.map((which) => new CheckAgain(which)),
    refuse: fc.constantFrom(1, 2, 8).map((count) => new Refuse(count)),
    retry: fc.tuple(index, interruption).map(([which, cut]) => new Retry(which, cut)),
    addContract: index.map((folder) => new AddContract(folder)),
    change: fc
      .tuple(index, index, fc.constantFrom('rename', 'rename', 'delete'))
      .map(([desk, batch, how]) => new Change(desk, batch, how as Change['how'])),
    tamper: fc
      .tuple(index, fc.constantFrom('stash', 'restore', 'truncate', 'swap'), index)
      .map(([desk, how, which]) => new Tamper(desk, how as Tamper['how'], which)),
  };
}
