/**
 * What a person and the world do, as fast-check commands over the World (world.ts): send a
 * manifest (plainly, continuing a batch, or anew on purpose), move, rename, copy and edit
 * folders, a second desk, pause, kill, power cut, quit, days going by, a line that drops calls,
 * creations whose answers are lost then sent again hours later, the app importing folders as
 * new batches (two at once), token refusals, statuses the spec does not list, and the answers
 * to "needs your check" on any desk. Each one checks the promises after it has run
 * (promises.ts).
 */
import fc from 'fast-check';
import { phaseOf, type BatchState, type DocumentState } from '../../main/domain/batch-state';
import { checkPromises, stageOfRequest } from './promises';
import { isFinalStage } from '../../shared/service/status';
import { checkRestPromises } from './rest-promises';
import type { Interruption, World } from './world';
import { everyBatch } from '../support/every-batch';

/** What the commands know before they run: how many folders and desks there are. */
export interface Counts {
  folders: number;
  desks: number;
}

type Action = fc.AsyncCommand<Counts, World, false>;

/** Runs `act`, logs what happened, and checks every promise. */
export async function step(world: World, label: string, act: () => Promise<string | void>): Promise<void> {
  const started = performance.now();
  const outcome = await act();
  const took = Math.round(performance.now() - started);
  world.ledger.log.push(`${outcome ? `${label} → ${outcome}` : label} [${took} ms]`);
  // Time passes between two things a person does.
  await world.pass(6_000);
  if (world.checksRest) await checkRestPromises(world);
  await checkPromises(world);
}

const pick = <T>(items: readonly T[], index: number): T => items[index % items.length] as T;

function describeInterruption(interruption: Interruption): string {
  if (interruption.kind === 'none') return '';
  if (interruption.kind === 'lost') return ' (answers lost)';
  if (interruption.kind === 'answered') return ' (pause at a creation answered)';
  return ` (${interruption.kind} after ${interruption.after})`;
}

class Send implements Action {
  constructor(
    readonly folder: number,
    readonly desk: number,
    readonly how: 'plain' | 'continue-batch' | 'send-new',
    readonly interruption: Interruption,
  ) {}
  check = () => true;
  async run(counts: Counts, world: World): Promise<void> {
    const folder = pick(world.folders, this.folder);
    const slot = pick(world.desks, this.desk);
    await step(world, this.toString(), () =>
      world.send(
        folder,
        slot,
        { continueBatch: this.how === 'continue-batch', sendNew: this.how === 'send-new' },
        this.interruption,
      ),
    );
  }
  toString(): string {
    return `send(folder ${this.folder}, desk ${this.desk}, ${this.how}${describeInterruption(this.interruption)})`;
  }
}

class Move implements Action {
  constructor(
    readonly folder: number,
    readonly what: 'folder' | 'manifest',
  ) {}
  check = () => true;
  async run(counts: Counts, world: World): Promise<void> {
    await step(world, this.toString(), async () => world.move(pick(world.folders, this.folder), this.what));
  }
  toString(): string {
    return `move(folder ${this.folder}, its ${this.what})`;
  }
}

class Copy implements Action {
  constructor(readonly folder: number) {}
  check = (counts: Readonly<Counts>) => counts.folders < 4;
  async run(counts: Counts, world: World): Promise<void> {
    counts.folders += 1;
    await step(world, this.toString(), async () => void world.copy(pick(world.folders, this.folder)));
  }
  toString(): string {
    return `copy(folder ${this.folder})`;
  }
}

class Edit implements Action {
  constructor(
    readonly folder: number,
    readonly row: number,
  ) {}
  check = () => true;
  async run(counts: Counts, world: World): Promise<void> {
    await step(world, this.toString(), async () => world.edit(pick(world.folders, this.folder), this.row));
  }
  toString(): string {
    return `edit(folder ${this.folder}, row ${this.row})`;
  }
}

class SecondDesk implements Action {
  check = (counts: Readonly<Counts>) => counts.desks < 2;
  async run(counts: Counts, world: World): Promise<void> {
    counts.desks += 1;
    await step(world, this.toString(), async () => void world.addDesk());
  }
  toString(): string {
    return 'second desk';
  }
}

class Quit implements Action {
  constructor(readonly desk: number) {}
  check = () => true;
  async run(counts: Counts, world: World): Promise<void> {
    await step(world, this.toString(), () => world.quit(pick(world.desks, this.desk)));
  }
  toString(): string {
    return `quit(desk ${this.desk})`;
  }
}

class Later implements Action {
  constructor(readonly hours: number) {}
  check = () => true;
  async run(counts: Counts, world: World): Promise<void> {
    await step(world, this.toString(), async () => {
      // Every app is quit, then started again later (keys may be forgotten, uploads expired).
      for (const slot of world.desks) await world.quit(slot);
      await world.pass(this.hours * 3_600_000);
    });
  }
  toString(): string {
    return `${this.hours} h later`;
  }
}

/**
 * A send whose creations' answers are lost (the person pauses at the app's first wait), every
 * app quit, and the same send again hours later: outcomes left unknown meet a service that may
 * have forgotten their keys (the deep state where "needs your check" must be asked, and only
 * beyond the key retention).
 */
class LostThenLater implements Action {
  constructor(
    readonly folder: number,
    readonly desk: number,
    readonly hours: number,
  ) {}
  check = () => true;
  async run(counts: Counts, world: World): Promise<void> {
    await step(world, this.toString(), async () => {
      const folder = pick(world.folders, this.folder);
      const slot = pick(world.desks, this.desk);
      const options = { continueBatch: false, sendNew: false };
      const first = await world.send(folder, slot, options, { kind: 'lost' });
      for (const each of world.desks) await world.quit(each);
      await world.pass(this.hours * 3_600_000);
      const again = await world.send(folder, slot, options, { kind: 'none' });
      return `${first}; ${this.hours} h later: ${again}`;
    });
  }
  toString(): string {
    return `answers lost, then send(folder ${this.folder}, desk ${this.desk}) ${this.hours} h later`;
  }
}

class Weather implements Action {
  constructor(
    readonly drops: number,
    readonly rate503: number,
    readonly tokenRefusals: number,
  ) {}
  check = () => true;
  async run(counts: Counts, world: World): Promise<void> {
    await step(world, this.toString(), async () => {
      world.weather(this.drops, this.rate503);
      world.sim.faults.set({ tokenRefusalRate: this.tokenRefusals });
    });
  }
  toString(): string {
    return `line(drops ${this.drops}, 503 ${this.rate503}, token refusals ${this.tokenRefusals})`;
  }
}

/** The app: one or two folders imported as new batches and sent at once (the engine's own question). */
class ImportInApp implements Action {
  constructor(
    readonly folder: number,
    readonly other: number | undefined,
    readonly desk: number,
  ) {}
  check = () => true;
  async run(counts: Counts, world: World): Promise<void> {
    const folders = [pick(world.folders, this.folder)];
    if (this.other !== undefined) folders.push(pick(world.folders, this.other));
    await step(world, this.toString(), () => world.importInApp(folders, pick(world.desks, this.desk)));
  }
  toString(): string {
    return `app import(folder ${this.folder}${this.other === undefined ? '' : ` and ${this.other} at once`}, desk ${this.desk})`;
  }
}

class StatusChange implements Action {
  constructor(
    readonly request: number,
    readonly status: 'declined' | 'expired' | 'on_hold' | 'in_progress' | 'completed',
  ) {}
  check = () => true;
  async run(counts: Counts, world: World): Promise<void> {
    await step(world, this.toString(), async () => {
      const prepared = world.sim.state.requests().filter((request) => request.preparedAt !== null);
      if (prepared.length === 0) return 'no prepared request';
      const request = pick(prepared, this.request);
      // A final state is final (the spec's "final state"): a desk that read it reads it no more.
      if (isFinalStage(stageOfRequest(request))) return `${request.externalReference} final already`;
      if (this.status === 'completed') {
        if (request.status !== 'prepared' && request.status !== 'in_progress') return 'not signable';
        world.sim.complete(request.id);
      } else world.sim.setStatus(request.id, { status: this.status });
      return `${request.externalReference} ${this.status}`;
    });
  }
  toString(): string {
    return `status(request ${this.request} → ${this.status})`;
  }
}

/** The person answers one "needs your check": links the request they find at the service, or sends anew. */
class Answer implements Action {
  constructor(
    readonly desk: number,
    readonly which: number,
    readonly how: 'link' | 'send-new',
    readonly interruption: Interruption,
  ) {}
  check = () => true;
  async run(counts: Counts, world: World): Promise<void> {
    await step(world, this.toString(), async () => {
      // Whichever desk holds checks: starting from this one, every desk's checks in turn.
      const start = this.desk % world.desks.length;
      const slots = [...world.desks.slice(start), ...world.desks.slice(0, start)];
      const checks: { slot: (typeof slots)[number]; batch: BatchState; document: DocumentState }[] = [];
      for (const candidate of slots) {
        const open = await world.open(candidate);
        for (const batch of await everyBatch(open.store))
          for (const document of batch.documents)
            if (phaseOf(document) === 'needs_check') checks.push({ slot: candidate, batch, document });
      }
      if (checks.length === 0) return 'nothing to answer';
      const { slot, batch, document } = pick(checks, this.which);
      const desk = await world.open(slot);
      const reference = document.draft.externalReference;
      if (this.how === 'send-new') {
        if (!(await world.sendAnew(slot, batch, document))) return `${reference}: send anew refused`;
      } else {
        // Looked up at the service, as the person would: the oldest request of this reference.
        const found = world.sim.state
          .requests()
          .filter((request) => request.externalReference === reference)
          .sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0];
        if (!found) return `${reference}: nothing to link at the service`;
        const linked = await world.complete(
          desk.engine.linkRequest(batch.id, document.draft.id, found.id, { confirmed: true }),
        );
        if (!linked.ok) return `${reference}: link refused (${linked.error.refusal})`;
      }
      return `${reference} ${this.how}: ${await world.resume(slot, batch.id, this.interruption)}`;
    });
  }
  toString(): string {
    return `answer(desk ${this.desk}, check ${this.which}, ${this.how}${describeInterruption(this.interruption)})`;
  }
}

export const interruption: fc.Arbitrary<Interruption> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Interruption>({ kind: 'none' }) },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 1, max: 12 }).map((after) => ({ kind: 'pause' as const, after })),
  },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 1, max: 160 }).map((after) => ({ kind: 'kill' as const, after })),
  },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 1, max: 160 }).map((after) => ({ kind: 'cut' as const, after })),
  },
  { weight: 1, arbitrary: fc.constant<Interruption>({ kind: 'lost' }) },
  { weight: 1, arbitrary: fc.constant<Interruption>({ kind: 'answered' }) },
);

const index = fc.nat({ max: 7 });

const send = fc
  .tuple(
    index,
    index,
    fc.constantFrom('plain', 'plain', 'plain', 'plain', 'continue-batch', 'send-new'),
    interruption,
  )
  .map(([folder, desk, how, cut]) => new Send(folder, desk, how as Send['how'], cut));
const answer = fc
  .tuple(index, index, fc.constantFrom('link', 'link', 'send-new'), interruption)
  .map(([desk, which, how, cut]) => new Answer(desk, which, how as Answer['how'], cut));

const move = fc
  .tuple(index, fc.constantFrom('folder', 'manifest'))
  .map(([folder, what]) => new Move(folder, what as Move['what']));
const copy = index.map((folder) => new Copy(folder));
const edit = fc.tuple(index, fc.nat({ max: 10 })).map(([folder, row]) => new Edit(folder, row));
const secondDesk = fc.constant(new SecondDesk());
const importInApp = fc
  .tuple(index, fc.option(index, { nil: undefined }), index)
  .map(([folder, other, desk]) => new ImportInApp(folder, other, desk));
const quit = index.map((desk) => new Quit(desk));
const later = fc.constantFrom(1, 2, 25).map((hours) => new Later(hours));
const lostThenLater = fc
  .tuple(index, index, fc.constantFrom(0.5, 2, 25))
  .map(([folder, desk, hours]) => new LostThenLater(folder, desk, hours));
const weather = fc
  .tuple(fc.constantFrom(0, 0, 0.15, 0.3), fc.constantFrom(0, 0.1), fc.constantFrom(0, 0, 0.2))
  .map(([drops, rate503, refusals]) => new Weather(drops, rate503, refusals));
const status = fc
  .tuple(index, fc.constantFrom('declined', 'expired', 'on_hold', 'in_progress', 'completed'))
  .map(([request, status]) => new StatusChange(request, status as StatusChange['status']));

/** Each kind of action, for a history that weighs them its own way (rest.test.ts). */
export const actionsByKind = {
  send,
  answer,
  move,
  copy,
  edit,
  secondDesk,
  importInApp,
  quit,
  later,
  lostThenLater,
  weather,
  status,
};

/** Every action; sending comes most often, then answering a check (fast-check picks among the entries alike). */
export const actions: fc.Arbitrary<Action>[] = [
  send,
  send,
  send,
  send,
  send,
  answer,
  answer,
  move,
  copy,
  edit,
  secondDesk,
  importInApp,
  quit,
  later,
  lostThenLater,
  weather,
  status,
];
