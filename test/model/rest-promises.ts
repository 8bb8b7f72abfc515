/**
 * What batches at rest (main/domain/batch-rest.ts) must keep true, checked after every step of a
 * generated history before the promises (promises.ts), which read every batch whole:
 * - a batch that is not at rest (something to send or to track) is in memory, where the engine
 *   and the poller look: one left out is never tracked again;
 * - what the store says of a batch without reading it (its outline, its documents' contract
 *   digests, the tray's counts) is what the batch holds;
 * - a rest file a start would take (rest-file.ts) says what the batch's snapshot and journal
 *   hold, however it was left (a power cut, a stale copy put back, another batch's);
 * - what the desk holds in memory is on its disk: nothing acknowledged is only in memory.
 */
import { join } from 'node:path';
import { trayCountsOf } from '../../main/app/tray-counts';
import { outlineOf } from '../../main/domain/batch-outline';
import { restingOf } from '../../main/domain/batch-rest';
import type { BatchState } from '../../main/domain/batch-state';
import { contractDigestOf } from '../../main/domain/contract-digest';
import { classOf } from '../../main/domain/document-class';
import { readBatch } from '../../main/store/batch-reading';
import { readRestFile } from '../../main/store/rest-file';
import { BrokenPromise } from './promises';
import type { DeskSlot, World } from './world';

const BATCHES = '/data/batches';

/**
 * The rule of a batch at rest, said again here rather than taken from the code it checks:
 * bound to its connection, and every document signed, ended, gone or failed.
 */
function atRest(batch: BatchState): boolean {
  const finished = ['completed', 'ended', 'gone', 'failed'];
  return (
    batch.connection !== undefined &&
    batch.documents.length > 0 &&
    batch.documents.every((document) => finished.includes(classOf(document)))
  );
}

function broken(message: string): never {
  throw new BrokenPromise(message);
}

/**
 * The same value as JSON holds it, to compare: no undefined fields, a time list as numbers or
 * null, and fields in one order (a state read from disk lists them in the order it was written).
 */
function plain(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item instanceof Float64Array)
      return Array.from(item, (time) => (Number.isFinite(time) ? time : null));
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
    const entries = Object.entries(item).sort(([a], [b]) => a.localeCompare(b));
    return Object.fromEntries(entries);
  });
}

const same = (a: unknown, b: unknown) => plain(a) === plain(b);

/** Where two values first differ, as a path and both sides, to say it. */
function firstDifference(a: unknown, b: unknown, path = ''): string {
  if (plain(a) === plain(b)) return '';
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const found = firstDifference(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        `${path}.${key}`,
      );
      if (found) return found;
    }
  }
  return `${path}: ${plain(a)?.slice(0, 300)} / ${plain(b)?.slice(0, 300)}`;
}

/** Lets the work under way (folds, records of answers already in) settle, without time passing. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** The batch as its folder holds it now (what a start would read whole), or undefined. */
async function onDisk(slot: DeskSlot, batchId: string): Promise<BatchState | undefined> {
  const read = await readBatch(join(BATCHES, batchId), batchId, slot.fs);
  return read.ok ? read.value.state : undefined;
}

/** Checks the promises of batches at rest on every desk, opening the ones that are not open. */
export async function checkRestPromises(world: World): Promise<void> {
  for (const slot of world.desks) {
    const desk = await world.open(slot);
    const { store } = desk;
    await settle();
    // What the store says before anything is read: a check must not change what it looks at.
    const inMemory = new Set(store.loaded().map((batch) => batch.id));
    const outlines = store.outlines();
    const contracts = new Map(outlines.map((outline) => [outline.id, [...store.contracts(outline.id)]]));
    const states: BatchState[] = [];
    for (const outline of outlines) {
      const state = await store.open(outline.id);
      if (!state) continue; // Deleted meanwhile.
      states.push(state);
      // Changed since it was looked at (an answer recorded meanwhile): nothing to compare.
      if (state.updatedAt !== outline.updatedAt) continue;
      const where = `${slot.name}/${state.name} (${state.id.slice(0, 8)})`;
      if (!atRest(state) && !inMemory.has(state.id))
        broken(
          `${where}: not at rest (${state.documents.map(classOf).join(', ')}), yet out of memory: neither sent nor tracked`,
        );
      if (!same(outline, outlineOf(state)))
        broken(
          `${where}: its outline says ${JSON.stringify(outline.counts)} of ${outline.documentCount}, the batch holds ${JSON.stringify(outlineOf(state).counts)}`,
        );
      if (!same(contracts.get(state.id), state.documents.map(contractDigestOf)))
        broken(
          `${where}: its contract digests are not its documents' (${JSON.stringify(contracts.get(state.id))})`,
        );
    }
    // The tray counts from outlines what the batches hold.
    const today = new Date(world.clock.now()).toDateString();
    const fromStates = trayCountsOf(states.map(outlineOf), today);
    const fromOutlines = trayCountsOf(
      outlines.filter((outline) => states.some((state) => state.updatedAt === outline.updatedAt)),
      today,
    );
    const comparable = outlines.every((outline) =>
      states.some((state) => state.id === outline.id && state.updatedAt === outline.updatedAt),
    );
    if (comparable && !same(fromStates, fromOutlines))
      broken(
        `${slot.name}: the tray counts ${JSON.stringify(fromOutlines)}, the batches hold ${JSON.stringify(fromStates)}`,
      );
    await checkDisk(slot, states);
  }
}

/**
 * Every batch in memory is on its disk as it is (compared again after the work under way
 * settled, as an answer may be stored and not applied yet), and every rest file a start would
 * take describes its batch.
 */
async function checkDisk(slot: DeskSlot, states: readonly BatchState[]): Promise<void> {
  for (const state of states) {
    const where = `${slot.name}/${state.name} (${state.id.slice(0, 8)})`;
    // In memory now, or as it was read back a moment ago (a batch at rest does not change).
    const memoryOf = () => slot.desk?.store.get(state.id) ?? state;
    let disk = await onDisk(slot, state.id);
    for (let attempt = 0; attempt < 5 && !same(disk, memoryOf()); attempt++) {
      await settle();
      disk = await onDisk(slot, state.id);
    }
    const memory = memoryOf();
    if (!same(disk, memory))
      broken(`${where}: memory and disk differ (memory / disk at ${firstDifference(memory, disk)})`);
    const rest = await readRestFile(join(BATCHES, state.id), slot.fs).catch(() => undefined);
    if (!rest || !disk) continue;
    if (!atRest(disk))
      broken(`${where}: a start would take it at rest from its rest file; it is not at rest`);
    const truth = restingOf(disk);
    if (!same(rest.resting, truth))
      broken(
        `${where}: a start would take its rest file, which says ${JSON.stringify(rest.resting.outline.counts)} "${rest.resting.outline.name}"; the batch holds ${JSON.stringify(truth.outline.counts)} "${truth.outline.name}"`,
      );
  }
}
