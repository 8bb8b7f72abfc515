import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../main/time/virtual-clock';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import type { SimulatorOptions } from '../../simulator/types';
import {
  fetchJson,
  getToken,
  pdfOfSize,
  readRequest,
  startUpload,
  waitFor,
  type RawOutcome,
} from './test-support';

let simulator: Simulator | undefined;

afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The status and digest of an upload that ended with an answer. */
function answerOf(outcome: RawOutcome): { status: number; sha256?: string } {
  if (outcome.kind !== 'answered') throw new Error(`the upload failed: ${outcome.code}`);
  return { status: outcome.status, sha256: (JSON.parse(outcome.text) as { sha256?: string }).sha256 };
}

/**
 * A simulator whose uplink (rates, stalls, `stall` faults) runs on a new virtual clock: a stall
 * lasts exactly its length of the line's time, and the test moves that time itself.
 */
async function startOnLineClock(
  options: SimulatorOptions = {},
): Promise<{ sim: Simulator; clock: VirtualClock }> {
  const clock = new VirtualClock();
  simulator = await startSimulator({ ...options, uplinkTime: clock });
  return { sim: simulator, clock };
}

function postUplink(sim: Simulator, body: unknown): ReturnType<typeof fetchJson> {
  return fetchJson(`${sim.baseUrl}/__simulator/uplink`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('a stall of the shared line (uplink.stall)', () => {
  it('carries nothing while it lasts, on every connection, then the uploads go on at the rate and finish', async () => {
    const { sim, clock } = await startOnLineClock({ uploadMbit: 2 });
    const token = await getToken(sim);
    const pdfs = [pdfOfSize(150_000, 'first'), pdfOfSize(150_000, 'second')];
    const uploads = pdfs.map((pdf) => startUpload(sim, token, pdf));
    await clock.runUntil(() => sim.uplink.receivedBytes() >= 60_000, { what: 'the first 60,000 bytes' });
    sim.uplink.stall(800);
    const stalledAt = clock.monotonic();
    const atStall = sim.uplink.receivedBytes();
    // All but the last millisecond of the stall: nothing crossed, on either connection, both still open.
    await clock.advance(799);
    expect(sim.uplink.receivedBytes()).toBe(atStall);
    expect(sim.uplink.stalledForMs()).toBe(1);
    expect(uploads.map((upload) => upload.closed())).toEqual([false, false]);
    // Bytes already on their way when it stalled arrive only after it comes back.
    const movedAfterMs = await clock.when(
      () => (sim.uplink.receivedBytes() > atStall ? clock.monotonic() - stalledAt : undefined),
      { what: 'bytes after the stall' },
    );
    expect(movedAfterMs).toBeGreaterThanOrEqual(800);
    const outcomes = await clock.complete(Promise.all(uploads.map((upload) => upload.outcome)));
    const answers = outcomes.map(answerOf);
    expect(answers).toEqual(pdfs.map((pdf) => ({ status: 201, sha256: sha256(pdf) })));
    expect(sim.uplink.receivedBytes()).toBe(300_000);
  });

  it('a stall of a minute holds the bytes until the control API ends it (stallMs 0), on an unlimited line too', async () => {
    simulator = await startSimulator();
    const sim = simulator;
    const token = await getToken(sim);
    const stalled = await postUplink(sim, { stallMs: 60_000 });
    expect(stalled.status).toBe(200);
    expect(stalled.body).toMatchObject({ mbit: null, stalledForMs: expect.any(Number) });
    expect(stalled.body.stalledForMs).toBeGreaterThan(59_000);
    const pdf = pdfOfSize(300_000, 'held');
    const upload = startUpload(sim, token, pdf);
    // The client hands its bytes over (the system's buffers take them), the service receives none.
    await waitFor(upload.bytesWritten, (written) => written >= pdf.length);
    expect(sim.uplink.receivedBytes()).toBe(0);
    expect((await fetchJson(`${sim.baseUrl}/__simulator/state`)).body.uplink.stalledForMs).toBeGreaterThan(
      50_000,
    );
    const resumed = await postUplink(sim, { stallMs: 0 });
    expect(resumed.body.stalledForMs).toBe(0);
    expect(answerOf(await upload.outcome)).toEqual({ status: 201, sha256: sha256(pdf) });
    expect(sim.uplink.receivedBytes()).toBe(300_000);
  });

  it('POST /__simulator/uplink sets the rates and refuses what it cannot play, changing nothing', async () => {
    simulator = await startSimulator();
    const sim = simulator;
    const set = await postUplink(sim, { mbit: 2, perConnectionMbit: 0.5 });
    expect(set.body).toEqual({
      mbit: 2,
      perConnectionMbit: 0.5,
      stalledForMs: 0,
      receivedBytes: 0,
      connections: [],
    });
    for (const refused of [
      { mbit: 0.0001 },
      { mbit: 1, perConnectionMbit: 0.0001 },
      { mbit: 1, stallMs: 90_000_000 },
      { stallMs: -1 },
      { stall: 1000 },
    ]) {
      const answer = await postUplink(sim, refused);
      expect([answer.status, answer.body.error.code]).toEqual([400, 'invalid_control_request']);
    }
    const state = await fetchJson(`${sim.baseUrl}/__simulator/state`);
    expect(state.body.uplink).toMatchObject({ mbit: 2, perConnectionMbit: 0.5, stalledForMs: 0 });
    const unlimited = await postUplink(sim, { mbit: 0, perConnectionMbit: 0 });
    expect(unlimited.body).toMatchObject({ mbit: null, perConnectionMbit: null });
    expect(() => sim.uplink.stall(-5)).toThrow(RangeError);
  });
});

describe('a stall of one connection (queued fault `stall`)', () => {
  it('after afterBytes of an upload its connection is not read for stallMs, other connections go on, then it finishes', async () => {
    const { sim, clock } = await startOnLineClock();
    const token = await getToken(sim);
    sim.faults.enqueue({
      kind: 'stall',
      pathPattern: '^/api/v1/uploads$',
      afterBytes: 100_000,
      stallMs: 1_500,
    });
    const heldPdf = pdfOfSize(400_000, 'held');
    const held = startUpload(sim, token, heldPdf);
    const [heldConnection] = await waitFor(
      () => sim.uplink.receivedByConnection(),
      (connections) => connections[0]?.receivedBytes === 100_000,
    );
    const otherPdf = pdfOfSize(200_000, 'other');
    const other = startUpload(sim, token, otherPdf);
    expect(answerOf(await other.outcome)).toEqual({ status: 201, sha256: sha256(otherPdf) });
    // The other upload came and went while the first one's connection was held at 100,000 bytes.
    expect(sim.uplink.receivedByConnection()).toEqual([
      {
        connection: heldConnection?.connection,
        clientPort: held.localPort(),
        receivedBytes: 100_000,
      },
      { connection: expect.any(Number), clientPort: other.localPort(), receivedBytes: 200_000 },
    ]);
    expect(held.closed()).toBe(false);
    // The line's time had not moved: the other upload crossed within the stall. Its last
    // millisecond still holds the connection; then the upload goes on and finishes.
    expect(clock.monotonic()).toBe(0);
    await clock.advance(1_499);
    expect(sim.uplink.receivedByConnection()[0]?.receivedBytes).toBe(100_000);
    expect(held.closed()).toBe(false);
    expect(answerOf(await clock.complete(held.outcome))).toEqual({ status: 201, sha256: sha256(heldPdf) });
    expect(clock.monotonic()).toBe(1_500);
    const uploads = sim.state.calls().filter((call) => call.operation === 'upload');
    expect(uploads.map(({ status, fault, receivedBytes }) => ({ status, fault, receivedBytes }))).toEqual([
      { status: 201, fault: null, receivedBytes: 200_000 },
      { status: 201, fault: 'stall', receivedBytes: 400_000 },
    ]);
  });

  it('holds another call before it is read, then answers it', async () => {
    const { sim, clock } = await startOnLineClock();
    const token = await getToken(sim);
    sim.faults.enqueue({ kind: 'stall', pathPattern: '^/api/v1/signing-requests/', stallMs: 300 });
    const reading = readRequest(sim, token, 'sr_held');
    await clock.runUntil(() => clock.pendingTimers === 1, { what: 'the read held before it is read' });
    await clock.advance(299);
    expect(sim.state.calls()).toEqual([expect.objectContaining({ operation: 'token' })]);
    expect((await clock.complete(reading)).status).toBe(404);
    expect(clock.monotonic()).toBe(300);
    expect(sim.state.calls().at(-1)).toMatchObject({ status: 404, fault: 'stall' });
    expect(sim.state.violations()).toEqual([]);
  });

  it('is refused without stallMs, and afterBytes is refused on other kinds', async () => {
    simulator = await startSimulator();
    const sim = simulator;
    expect(() => sim.faults.enqueue({ kind: 'stall' })).toThrow(RangeError);
    expect(() => sim.faults.enqueue({ kind: '503', afterBytes: 10 })).toThrow(RangeError);
    expect(() => sim.faults.enqueue({ kind: 'silent', afterBytes: -1 })).toThrow(RangeError);
    expect(() => sim.faults.enqueue({ kind: 'stall', stallMs: 90_000_000 })).toThrow(RangeError);
    const queued = await fetchJson(`${sim.baseUrl}/__simulator/faults/enqueue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ faults: [{ kind: 'stall', afterBytes: 1024, stallMs: 60_000 }] }),
    });
    expect(queued.body).toEqual({ queued: 1 });
  });
});
