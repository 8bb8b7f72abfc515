import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { participantDone, phaseOf } from '../../../main/domain/batch-state';
import { BatchStore } from '../../../main/store/batch-store';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../../simulator/simulator';
import { makeBatch, observer, openTestDesk } from '../../support/batch-harness';
import { answerChecks } from '../../support/user-checks';
import { bundleEntry, killAllCli, parseJsonLines, runCli, startCli } from '../../support/cli-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { createSeededRandom } from '../../../simulator/seeded-random';

/**
 * The send engine killed with SIGKILL while it adds extra participants, a call the spec gives no
 * idempotency key: after every restart, each request must end with each of its participants
 * exactly once, none lost, none failed. Half the kills land right after the service added a
 * participant, while its answer is still on the way (the simulator answers after its latency).
 *
 * Replay a failure with CRASH_SEED=<seed> npx vitest run test/main/engine/participants-crash.test.ts
 */
const SEED = Number(process.env.CRASH_SEED ?? 20_261_123);
const DOCUMENTS = 10;
const EXTRA_PARTICIPANTS = 3;
const KILLS_WANTED = 16;

type KillKind = 'random-delay' | 'after-participant';

let files: TempFolder;
let childPath: string;
let sim: Simulator;

beforeAll(async () => {
  files = makeTempFolder('desk-participants-crash-');
  childPath = await bundleEntry(
    fileURLToPath(new URL('../../support/send-child.ts', import.meta.url)),
    files.file('send-child.mjs'),
  );
  sim = await startSimulator({ seed: SEED });
  sim.faults.set({ latencyMs: 60, latencySpikeRate: 0.25, latencySpikeMs: 120 });
}, 60_000);

afterAll(async () => {
  await killAllCli();
  await sim?.close();
  files?.remove();
});

/** Participants the service added with the participants endpoint: not the signer a creation adds. */
function observersAtService(): number {
  return sim.state
    .requests()
    .reduce((sum, request) => sum + request.participants.filter((person) => person.addedLater).length, 0);
}

describe('the send engine, killed while adding participants and run again', () => {
  it(`ends with every participant exactly once (kill schedule seed ${SEED})`, async () => {
    const dataDir = files.file('data');
    const desk = await openTestDesk(sim, dataDir);
    const batch = await makeBatch(desk, files, DOCUMENTS);
    for (const document of batch.documents) {
      const index = Number(document.draft.externalReference.slice('REF-'.length));
      const extras = Array.from({ length: EXTRA_PARTICIPANTS }, (_, n) => ({
        ...observer(index),
        name: `Observer ${index}.${n + 1}`,
        email: `observer${index}.${n + 1}@example.com`,
      }));
      await desk.store.record(batch.id, [
        { type: 'document_edited', document: { ...document.draft, extraParticipants: extras } },
      ]);
    }
    await desk.close();

    const args = [dataDir, batch.id, sim.baseUrl];
    const random = createSeededRandom(SEED);
    const kills: Record<KillKind, number> = { 'random-delay': 0, 'after-participant': 0 };
    /** After each kill: how far the service got, so that a run ending too soon says why. */
    const log: string[] = [];
    for (let kill = 0; kill < KILLS_WANTED; kill += 1) {
      const kind: KillKind = kill % 2 === 0 ? 'after-participant' : 'random-delay';
      const before = observersAtService();
      const child = startCli(childPath, args, { credentials: DEMO_CLIENT });
      let killed = false;
      const killNow = () => {
        if (killed) return;
        killed = true;
        void child.kill();
      };
      let poll: NodeJS.Timeout | undefined;
      let timer: NodeJS.Timeout | undefined;
      if (kind === 'after-participant') {
        // The service has just added a participant; its answer is on its way to the child.
        poll = setInterval(() => {
          if (observersAtService() > before) killNow();
        }, 1);
      } else {
        timer = setTimeout(killNow, 100 + Math.floor(random() * 500));
      }
      const result = await child.done;
      clearInterval(poll);
      clearTimeout(timer);
      if (result.signal !== 'SIGKILL') {
        throw new Error(
          `run ${kill + 1} (${kind}) ended by itself: the batch finished too soon to test; before it, ${log.at(-1) ?? 'nothing sent'}\n  ${log.join('\n  ')}\n${result.stdout.slice(-800)}`,
        );
      }
      kills[kind] += 1;
      log.push(
        `after kill ${kill + 1} (${kind}): ${sim.state.requests().length} of ${DOCUMENTS} requests, ${observersAtService()} of ${DOCUMENTS * EXTRA_PARTICIPANTS} observers at the service`,
      );
    }

    // A kill while a creation was on its way may leave documents that need the user's check,
    // some only known once the next run has looked at the attempts the kill interrupted:
    // answered as a user would, from what the service shows, then sent again.
    let final: Awaited<ReturnType<typeof runCli>> | undefined;
    const answers = { linked: 0, sentAsNew: 0 };
    for (let round = 0; round < 3; round += 1) {
      const answering = await openTestDesk(sim, dataDir);
      const answered = await answerChecks(answering.store, answering.engine, sim, batch.id);
      answers.linked += answered.linked;
      answers.sentAsNew += answered.sentAsNew;
      await answering.close();
      final = await runCli(childPath, args, { credentials: DEMO_CLIENT });
      if (parseJsonLines(final.stdout).at(-1)?.needsCheck === 0) break;
    }
    if (!final) throw new Error('no final run');
    expect(final.stderr).toBe('');
    expect(parseJsonLines(final.stdout).at(-1)).toMatchObject({
      type: 'summary',
      state: 'finished',
      prepared: DOCUMENTS,
      failed: 0,
    });

    // At the service: one request per document, each with its recipient and its three extra
    // participants, each exactly once.
    expect(Object.values(sim.state.countByExternalReference())).toEqual(Array(DOCUMENTS).fill(1));
    for (const request of sim.state.requests()) {
      const index = request.externalReference.slice('REF-'.length);
      const emails = request.participants.map((participant) => participant.email).sort();
      expect(emails, request.externalReference).toEqual(
        [
          `signer${index}@example.com`,
          ...Array.from({ length: EXTRA_PARTICIPANTS }, (_, n) => `observer${index}.${n + 1}@example.com`),
        ].sort(),
      );
      expect(request.status).toBe('prepared');
    }
    expect(sim.state.violations()).toEqual([]);

    // Locally: every document prepared, every participant done; the kills after a participant
    // was added left answers the child never heard, which later runs found already there.
    const store = await BatchStore.open(dataDir, { readOnly: true });
    const documents = store.get(batch.id)?.documents ?? [];
    expect(documents.map(phaseOf)).toEqual(Array(DOCUMENTS).fill('prepared'));
    const progress = documents.flatMap((document) =>
      Array.from({ length: EXTRA_PARTICIPANTS }, (_, n) => document.send.participants[n]),
    );
    expect(progress.every(participantDone)).toBe(true);
    expect(progress.filter((state) => state?.done === 'already_there').length).toBeGreaterThan(0);
    expect(kills['after-participant']).toBe(KILLS_WANTED / 2);
    console.log(
      `participants crash seed ${SEED}: kills ${JSON.stringify(kills)}; checks answered ${JSON.stringify(answers)}; participants found already there after a lost answer: ${progress.filter((state) => state?.done === 'already_there').length}\n  ${log.join('\n  ')}`,
    );
  }, 240_000);
});
