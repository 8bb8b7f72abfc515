import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import { createMemoryCredentialStore } from '../../../main/credentials/credential-store';
import { openDataDir, type DataDir } from '../../../main/app/desk-core';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import type { EngineStateView } from '../../../shared/ipc/views';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { SAMPLE_MANIFEST } from '../../e2e/journeys';
import { createTestDeskService, sendAsReviewed } from '../../support/desk-service-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';

let files: TempFolder;
let dataDir: DataDir;
let sim: Simulator;
/** The service's, the data folder's and the desk's one clock. */
let clock: VirtualClock;
let service: DeskService | undefined;
const states: EngineStateView[] = [];

beforeEach(async () => {
  files = makeTempFolder('service-waits-');
  ({ sim, clock } = await startVirtualSimulator({ seed: 31 }));
  const opened = await openDataDir(files.file('data'), { clock });
  if (!opened.ok) throw new Error(opened.error);
  dataDir = opened.value;
  states.length = 0;
});

afterEach(async () => {
  if (service) await clock.complete(service.close());
  service = undefined;
  await dataDir.close();
  await sim.close();
  files.remove();
});

/** A desk speaking `locale`'s language, with the sample batch (3 documents) ready to send. */
async function sampleBatch(locale: string): Promise<{ service: DeskService; batchId: string }> {
  service = createTestDeskService(dataDir, createMemoryCredentialStore(), {
    systemLocales: [locale],
    clock,
    emit: (event, payload) => {
      if (event === 'sending.state') states.push((payload as { engine: EngineStateView }).engine);
    },
  });
  const { handlers } = service;
  await handlers['profiles.save']({
    name: 'Office',
    baseUrl: sim.baseUrl,
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  const batch = await handlers['batches.create']('Lundi');
  await handlers['manifest.import'](batch.id, SAMPLE_MANIFEST);
  return { service, batchId: batch.id };
}

/** Lets virtual time run until the engine has said what `predicate` looks for; that state. */
function engineSaid(what: string, predicate: (state: EngineStateView) => boolean): Promise<EngineStateView> {
  return clock.when(() => states.find(predicate), { what, withinMs: 600_000 });
}

it("a service that cannot be reached: the batch waits, saying so in the person's language (French)", async () => {
  const { service: desk, batchId } = await sampleBatch('fr-FR');
  sim.faults.set({ dropBeforeRate: 1 });
  await sendAsReviewed(desk.handlers, batchId);
  expect(await engineSaid('the batch waiting', (state) => state.state === 'waiting')).toMatchObject({
    reason: 'Le service de signature est injoignable. L’envoi reprend de lui-même.',
  });
  await clock.complete(desk.handlers['sending.pause'](batchId));
});

it.each([
  ['fr-FR', 'Le service de signature est temporairement indisponible. L’envoi reprend de lui-même.'],
  ['de-DE', 'Der Signaturdienst ist vorübergehend nicht verfügbar. Das Senden wird von selbst fortgesetzt.'],
])(
  "a busy service (503): the wait is said in the person's language (%s), not in English",
  async (locale, reason) => {
    const { service: desk, batchId } = await sampleBatch(locale);
    sim.faults.set({ rate503: 1 });
    await sendAsReviewed(desk.handlers, batchId);
    expect(await engineSaid('the batch waiting', (state) => state.state === 'waiting')).toMatchObject({
      reason,
    });
    // The batch list says the same.
    const summary = (await desk.handlers['batches.list']()).find((batch) => batch.id === batchId);
    expect(summary?.engine).toMatchObject({ state: 'waiting', reason });
    await clock.complete(desk.handlers['sending.pause'](batchId));
  },
);

it('a silent service: the page is told the batch is slow (sending.state), and told again once answers come', async () => {
  const { service: desk, batchId } = await sampleBatch('en-GB');
  sim.faults.set({ latencyMs: 4_000, pathPattern: '^/api/v1/signing-requests$' });
  await sendAsReviewed(desk.handlers, batchId);
  // Said while the calls are still unanswered (4 s each at the service).
  await engineSaid('the batch said slow', (state) => state.slow === true);
  expect(sim.state.callsUnderWay()).toBeGreaterThan(0);
  expect((await desk.handlers['batches.get'](batchId)).engine.slow).toBe(true);
  sim.faults.set({ latencyMs: 0 });
  await clock.runUntil(() => states.at(-1)?.state === 'finished', { what: 'the batch finished' });
  expect(states.at(-1)?.slow).toBeUndefined();
  expect((await desk.handlers['batches.get'](batchId)).engine.slow).toBeUndefined();
});
