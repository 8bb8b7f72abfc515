import { writeFileSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { addPdfDocuments } from '../../../main/engine/batch-preparation';
import type { SendEngineEvent } from '../../../main/engine/send-events';
import { SLOW_CALL_MS } from '../../../main/engine/slow-calls';
import type { Desk } from '../../../main/app/desk-core';
import { Secret } from '../../../main/base/secret';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { makeBatch, openTestDesk, signer } from '../../support/batch-harness';
import { makePdfBytes, makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { countingTimers, openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

/**
 * When the batch is said to be slow, on one virtual clock for the service, the desk and the test:
 * "within seconds" is measured exactly, in virtual time, whatever the load of the machine.
 */
let sim: Simulator;
let clock: VirtualClock;
let files: TempFolder;
let desk: Desk;

beforeEach(async () => {
  ({ sim, clock } = await startVirtualSimulator({ seed: 21 }));
  files = makeTempFolder();
  desk = await openVirtualDesk(sim, clock, files.file('data'));
});
afterEach(async () => {
  await clock.complete(desk.close());
  // Calls the service still holds (its latency, on this clock) end before it closes: none is
  // left on a connection the next test's real work would wait for.
  await clock.advanceWhileCallsHang(60_000);
  await sim.close();
  files.remove();
});

/** Every engine event, with when it was said (virtual ms). */
function watchEngine(): { event: SendEngineEvent; at: number }[] {
  const events: { event: SendEngineEvent; at: number }[] = [];
  desk.engine.subscribe((event) => events.push({ event, at: clock.monotonic() }));
  return events;
}

/** The batch's slowness as the engine said it, with when (ms after `started`). */
function slowness(events: readonly { event: SendEngineEvent; at: number }[], started: number) {
  return events.flatMap(({ event, at }) =>
    event.type === 'service-slow' ? [{ slow: event.slow, after: at - started }] : [],
  );
}

it('a service that stops answering (no refusal, just silence): the batch is said to be slow within seconds, and no longer once answers come again', async () => {
  const batch = await makeBatch(desk, files, 3);
  const events = watchEngine();
  // The service takes its creations in, then says nothing for 5 s.
  sim.faults.set({ latencyMs: 5_000, pathPattern: '^/api/v1/signing-requests$' });
  const started = clock.monotonic();
  const sending = desk.engine.send(batch.id);

  await clock.runUntil(() => slowness(events, started).length > 0, {
    what: 'the batch said to be slow',
    withinMs: 5_000,
  });
  const [first] = slowness(events, started);
  expect(first?.slow).toBe(true);
  // Said slow once the first creation was silent for SLOW_CALL_MS, at the next look (every
  // 250 ms): not before, and not later.
  const creating = events.find(({ event }) => event.type === 'item-progress' && event.phase === 'creating')!;
  expect(first!.after - (creating.at - started)).toBeGreaterThanOrEqual(SLOW_CALL_MS);
  expect(first!.after - (creating.at - started)).toBeLessThanOrEqual(SLOW_CALL_MS + 250);

  sim.faults.set({ latencyMs: 0 }); // the service answers again
  expect(await clock.complete(sending)).toMatchObject({ state: 'finished', prepared: 3 });
  const said = slowness(events, started);
  expect(said.map((entry) => entry.slow)).toEqual([true, false]);
  // It was said no longer before the batch finished, once the late answers came.
  const finishedAt = events.find(
    ({ event }) => event.type === 'engine-state' && event.state === 'finished',
  )!.at;
  expect(said[1]!.after + started).toBeLessThanOrEqual(finishedAt);
});

it("a service that stays frozen: said slow once and kept so across the calls' deadlines and the wait (no flicker), until it answers again", async () => {
  const batch = await makeBatch(desk, files, 3);
  const events = watchEngine();
  // Every upload and creation is taken in and never answered; the token still comes.
  sim.faults.set({ silentRate: 1, pathPattern: '^/api/v1/(uploads|signing-requests)' });
  const started = clock.monotonic();
  const sending = desk.engine.send(batch.id);
  // Long enough for several deadlines (30 s each), retries and the wait for the service.
  await clock.advanceWhileCallsHang(200_000);
  const states = events.flatMap(({ event }) => (event.type === 'engine-state' ? [event.state] : []));
  expect(states).toContain('waiting');
  // Said once, within seconds, and never taken back while the service stayed frozen.
  expect(slowness(events, started)).toEqual([{ slow: true, after: expect.any(Number) }]);
  expect(slowness(events, started)[0]!.after).toBeLessThanOrEqual(SLOW_CALL_MS + 500);

  sim.faults.set({ silentRate: 0 }); // the service answers again
  desk.engine.tryNow(batch.id);
  // The calls it took in before stay unanswered until their deadlines give them up.
  await clock.advanceWhileCallsHang(60_000);
  expect(await clock.complete(sending)).toMatchObject({ state: 'finished', prepared: 3 });
  expect(slowness(events, started).map((entry) => entry.slow)).toEqual([true, false]);
}, 30_000);

it('a service answering at its normal pace: the batch is never said to be slow', async () => {
  const batch = await makeBatch(desk, files, 4);
  const events = watchEngine();
  sim.faults.set({ latencyMs: 200 });
  expect(await clock.complete(desk.engine.send(batch.id))).toMatchObject({ state: 'finished', prepared: 4 });
  expect(slowness(events, 0)).toEqual([]);
});

it('Pause while the service is silent: the slowness ends with the run', async () => {
  const batch = await makeBatch(desk, files, 2);
  const events = watchEngine();
  sim.faults.set({ latencyMs: 20_000, pathPattern: '^/api/v1/signing-requests$' });
  const sending = desk.engine.send(batch.id);
  await clock.runUntil(() => slowness(events, 0).length === 1, {
    what: 'the batch said to be slow',
    withinMs: 5_000,
  });
  desk.engine.pause(batch.id);
  expect((await clock.complete(sending)).state).toBe('paused');
  expect(slowness(events, 0).map((entry) => entry.slow)).toEqual([true, false]);
});

it('"Try now" while the service cannot be reached: the batch tries again at once instead of at the end of its wait', async () => {
  await clock.complete(desk.close());
  desk = await openVirtualDesk(sim, clock, files.file('data'), {
    engineWaitMs: { first: 30_000, longest: 60_000 },
  });
  const batch = await makeBatch(desk, files, 2);
  const events: SendEngineEvent[] = [];
  desk.engine.subscribe((event) => events.push(event));
  expect(desk.engine.tryNow(batch.id)).toBe(false); // not sending: nothing to try
  sim.faults.set({ dropBeforeRate: 1 }); // every connection is cut: the service cannot be reached
  const sending = desk.engine.send(batch.id);
  await clock.runUntil(
    () => events.some((event) => event.type === 'engine-state' && event.state === 'waiting'),
    { what: 'the batch waiting for its service' },
  );
  const waiting = events.findLast((event) => event.type === 'engine-state')!;
  const resumesAt = waiting.type === 'engine-state' ? waiting.resumesAt! : 0;
  // The next try is at least 15 s away.
  expect(resumesAt - clock.now()).toBeGreaterThan(15_000);

  sim.faults.set({ dropBeforeRate: 0 }); // the service is back
  const tried = clock.monotonic();
  expect(desk.engine.tryNow(batch.id)).toBe(true);
  expect(await clock.complete(sending)).toMatchObject({ state: 'finished', prepared: 2 });
  // Finished long before the wait would have ended: the try was at once.
  expect(clock.now()).toBeLessThan(resumesAt);
  expect(clock.monotonic() - tried).toBeLessThan(5_000);
});

it('a retry asked while the batch waits for its service wakes it once, without spinning until the wait ends', async () => {
  await clock.complete(desk.close());
  const timers = countingTimers(clock);
  desk = await openVirtualDesk(sim, clock, files.file('data'), {
    clock: timers.clock,
    engineWaitMs: { first: 30_000, longest: 60_000 },
  });
  const batch = await makeBatch(desk, files, 2);
  const events: SendEngineEvent[] = [];
  desk.engine.subscribe((event) => events.push(event));
  // The first upload is refused for good (that document fails); every creation is cut (the
  // service cannot be reached), from the start, so the batch is waiting whatever the pace.
  sim.faults.enqueue({ kind: 'reject', status: 400, code: 'invalid_pdf', pathPattern: '^/api/v1/uploads$' });
  sim.faults.set({ dropBeforeRate: 1, pathPattern: '^/api/v1/signing-requests$' });
  const sending = desk.engine.send(batch.id);
  await clock.runUntil(
    () =>
      Boolean(desk.store.get(batch.id)?.documents.some((document) => document.send.error)) &&
      events.some((event) => event.type === 'engine-state' && event.state === 'waiting'),
    { what: 'one document failed and the batch waiting' },
  );
  const failed = desk.store.get(batch.id)!.documents.find((document) => document.send.error)!;
  await clock.complete(desk.engine.retry(batch.id, failed.draft.id));
  // The retry is taken (the document is queued again); it goes once the service can be reached.
  expect(desk.store.get(batch.id)!.documents.find((d) => d.draft.id === failed.draft.id)!.send.error).toBe(
    undefined,
  );

  // Waiting costs nothing: until the wait ends, a handful of naps (a busy loop would set
  // thousands of timers at one instant), and no call.
  const waiting = events.findLast((event) => event.type === 'engine-state');
  const waitLeft = (waiting?.type === 'engine-state' ? waiting.resumesAt! : 0) - clock.now();
  expect(waitLeft).toBeGreaterThan(10_000);
  const timersBefore = timers.set();
  const callsBefore = sim.state.calls().length;
  await clock.advance(waitLeft - 1);
  expect(timers.set() - timersBefore, 'timers set while waiting').toBeLessThan(100);
  expect(sim.state.calls()).toHaveLength(callsBefore);

  desk.engine.pause(batch.id);
  expect((await clock.complete(sending)).state).toBe('paused');
});

/**
 * A slow line in front of the simulator: what the app sends reaches the service at `bytesPerS`
 * (answers come back at once). As on a real slow line, the system takes the request into its
 * buffers at once and lets it out at the line's pace. The line is real (the test of the line
 * runs on real time); `heldMs` says how long it held the bytes back in all, as it scheduled it.
 */
async function slowLine(sim: Simulator, bytesPerS: number) {
  const sockets = new Set<Socket>();
  const upstreamPort = Number(new URL(sim.baseUrl).port);
  let heldMs = 0;
  const server = createServer((app) => {
    const service = createConnection({ host: '127.0.0.1', port: upstreamPort });
    for (const socket of [app, service]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    service.pipe(app);
    app.on('data', (chunk: Buffer) => {
      service.write(chunk);
      app.pause();
      const ms = (chunk.length / bytesPerS) * 1000;
      heldMs += ms;
      setTimeout(() => app.resume(), ms);
    });
    app.on('end', () => service.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    heldMs: () => heldMs,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

it('a large upload on a slow line, going at the pace the app allows for: the batch is never said to be slow', async () => {
  const RATE = 128 * 1024; // the slowest line uploads are made for
  const line = await slowLine(sim, RATE);
  try {
    // Real time: the slowness is judged on the system's clock while the line holds the bytes.
    await clock.complete(desk.close());
    desk = await openTestDesk(sim, files.file('data'), {
      connection: {
        baseUrl: line.baseUrl,
        clientId: DEMO_CLIENT.clientId,
        clientSecret: new Secret(DEMO_CLIENT.clientSecret),
      },
    });
    // A real PDF of 512 KiB (a long comment after it): 4 s on this line, twice a slow call's silence.
    const path = files.file('large contract.pdf');
    const padding = Buffer.alloc(512 * 1024, 'x');
    writeFileSync(path, Buffer.concat([await makePdfBytes('Large contract'), Buffer.from('\n%'), padding]));
    const batch = await desk.store.create('Large', {
      defaultRecipients: [],
      locale: 'fr-FR',
      transactionType: 'employment_contract',
    });
    const { added } = await addPdfDocuments(desk.store, desk.blobs, batch.id, [path]);
    await desk.store.record(batch.id, [
      {
        type: 'document_edited',
        document: { ...added[0]!, externalReference: 'REF-1', recipients: [signer(1)] },
      },
    ]);
    const said: boolean[] = [];
    desk.engine.subscribe((event) => {
      if (event.type === 'service-slow') said.push(event.slow);
    });

    expect(await desk.engine.send(batch.id)).toMatchObject({ state: 'finished', prepared: 1 });
    // The line held the upload's bytes back far longer than a normal answer takes…
    expect(line.heldMs()).toBeGreaterThan(1.5 * SLOW_CALL_MS);
    // …and while they were still leaving, the service was not said to be slow to answer.
    expect(said).toEqual([]);
  } finally {
    await line.close();
  }
});
