import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../main/time/virtual-clock';
import { TIMER_SLACK_MS } from '../../simulator/line';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import type { SimulatorOptions } from '../../simulator/types';
import {
  fetchJson,
  getToken,
  samplePdf,
  startUpload,
  uploadPdf,
  waitFor,
  type RawOutcome,
} from './test-support';

/**
 * The line's rules (rates, sharing, a new rate) are checked on the line's own time: the
 * simulator's uplink runs on a virtual clock (`uplinkTime`), every piece crosses at the instant
 * the line reserved for it, and the tests read the counters at each of those instants. No
 * stopwatch of this process: a loaded machine changes nothing. The clients stay plain HTTP
 * clients off the clock. One test keeps a real line (this computer's time) to show bytes do
 * cross it in steps; the real line's speed is a benchmark's figure (bench/uplink).
 */

let simulator: Simulator | undefined;

afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

/** A simulator whose uplink runs on a new virtual clock. */
async function startOnLineClock(options: SimulatorOptions): Promise<{ sim: Simulator; clock: VirtualClock }> {
  const clock = new VirtualClock();
  simulator = await startSimulator({ ...options, uplinkTime: clock });
  return { sim: simulator, clock };
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A PDF of exactly `bytes` (the simulator checks only the header). */
function pdfOf(bytes: number, text: string): Buffer {
  const head = samplePdf(text);
  return Buffer.concat([head, Buffer.alloc(bytes - head.length, 0x20)]);
}

describe('the uplink (uploadMbit): one link shared by every upload', () => {
  it('two uploads on two connections cross one 8 Mbit/s link together: no faster than the link, bytes counted as they arrive', async () => {
    const { sim, clock } = await startOnLineClock({ uploadMbit: 8 });
    const token = await getToken(sim);
    const pdfs = [pdfOf(512 * 1024, 'first'), pdfOf(512 * 1024, 'second')];
    const total = pdfs[0]!.length + pdfs[1]!.length;
    const uploads = Promise.all(pdfs.map((pdf) => uploadPdf(sim, token, pdf)));
    // What the service received at every instant the line moved (1 MiB at 1,000,000 bytes a second: 1.05 s).
    const samples = await sampleUntil(sim, clock, uploads);
    const answers = await uploads;
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    expect(answers.map((answer) => answer.body.sha256)).toEqual(pdfs.map(sha256));
    const between = samples.filter((sample) => sample.total > 0 && sample.total < total);
    // Several distinct counts on the way: the bytes arrive at the link's pace, not at once.
    expect(new Set(between.map((sample) => sample.total)).size).toBeGreaterThanOrEqual(5);
    for (const sample of samples) expect(sample.total).toBeLessThanOrEqual(mostCarried(8, sample.elapsedMs));
    // Never faster than the link: the last byte crossed no sooner than the link allows.
    const lastAt = samples.find((sample) => sample.total === total)?.elapsedMs ?? 0;
    expect(lastAt).toBeGreaterThanOrEqual(((total * 8) / 8_000_000) * 1000 - TIMER_SLACK_MS);
    expect(sim.uplink.receivedBytes()).toBe(total);
  });

  it('is unlimited by default, can be set while running, and is shown by the control API', async () => {
    simulator = await startSimulator();
    const sim = simulator;
    const token = await getToken(sim);
    expect((await fetchJson(`${sim.baseUrl}/__simulator/state`)).body.uplink).toEqual({
      mbit: null,
      perConnectionMbit: null,
      stalledForMs: 0,
      receivedBytes: 0,
      connections: [],
    });
    // This line runs on this computer's time, as in the app's journeys: 100,000 bytes at
    // 500,000 bytes a second cross in pieces of 25,000, one every 50 ms.
    sim.uplink.set(4);
    const pdf = pdfOf(100_000, 'paced');
    const upload = startUpload(sim, token, pdf);
    const partly = await waitFor(sim.uplink.receivedBytes, (received) => received > 0);
    expect(partly).toBeLessThan(100_000);
    expect(answered([await upload.outcome])).toEqual([{ status: 201, sha256: sha256(pdf) }]);
    expect((await fetchJson(`${sim.baseUrl}/__simulator/state`)).body.uplink).toEqual({
      mbit: 4,
      perConnectionMbit: null,
      stalledForMs: 0,
      receivedBytes: 100_000,
      connections: [
        { connection: expect.any(Number), clientPort: expect.any(Number), receivedBytes: 100_000 },
      ],
    });
    expect(() => sim.uplink.set(-1)).toThrow(RangeError);
    // Slower than 1 kbit/s would silently become no limit at all (setTimeout's cap).
    expect(() => sim.uplink.set(1e-12)).toThrow(RangeError);
    await expect(startSimulator({ uploadMbit: 1e-12 })).rejects.toThrow(RangeError);
  });
});

/** What the simulator had received, per connection (in the order of their first upload), `elapsedMs` of line time after the start. */
interface Sample {
  elapsedMs: number;
  total: number;
  byConnection: number[];
}

function sampleOf(sim: Simulator, elapsedMs: number): Sample {
  return {
    elapsedMs,
    total: sim.uplink.receivedBytes(),
    byConnection: sim.uplink.receivedByConnection().map((connection) => connection.receivedBytes),
  };
}

/**
 * Lets the line's time run until `work` settles (or `enough` holds), reading the simulator's
 * counters at every instant the line moved; the start is the line's time now.
 */
async function sampleUntil(
  sim: Simulator,
  clock: VirtualClock,
  work: Promise<unknown>,
  enough: (sample: Sample) => boolean = () => false,
): Promise<Sample[]> {
  const start = clock.monotonic();
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  const samples: Sample[] = [];
  await clock.runUntil(
    () => {
      const sample = sampleOf(sim, clock.monotonic() - start);
      samples.push(sample);
      return settled || enough(sample);
    },
    { what: 'the uploads' },
  );
  return samples;
}

/** The most a line of `mbit` can have carried in `elapsedMs` (its 10 ms burst included). */
function mostCarried(mbit: number, elapsedMs: number): number {
  return ((mbit * 1_000_000) / 8 / 1000) * (elapsedMs + TIMER_SLACK_MS);
}

/** The answers of uploads that all ended with an answer. */
function answered(outcomes: RawOutcome[]): { status: number; sha256: string }[] {
  return outcomes.map((outcome) => {
    if (outcome.kind !== 'answered') throw new Error(`an upload failed: ${outcome.code}`);
    return { status: outcome.status, sha256: (JSON.parse(outcome.text) as { sha256: string }).sha256 };
  });
}

describe('a line per connection (uploadMbitPerConnection), alone and with the shared line', () => {
  it('three connections at 0.5 Mbit/s each: none carries more than its line, together more than one line could', async () => {
    const { sim, clock } = await startOnLineClock({ uploadMbitPerConnection: 0.5 });
    const token = await getToken(sim);
    const pdfs = [0, 1, 2].map((index) => pdfOf(60_000, `connection ${index}`));
    const uploads = pdfs.map((pdf) => startUpload(sim, token, pdf));
    const outcomes = Promise.all(uploads.map((upload) => upload.outcome));
    const samples = await sampleUntil(sim, clock, outcomes);
    const elapsedMs = samples.find((sample) => sample.total === 180_000)?.elapsedMs ?? Infinity;
    expect(answered(await outcomes)).toEqual(pdfs.map((pdf) => ({ status: 201, sha256: sha256(pdf) })));
    // Each connection is named with the client's own port, so a client can tell which of its uploads got what.
    const clientPorts = uploads.map((upload) => upload.localPort());
    expect(clientPorts).toEqual(pdfs.map(() => expect.any(Number)));
    const byConnection = sim.uplink.receivedByConnection();
    expect(byConnection.map((connection) => connection.clientPort).sort()).toEqual([...clientPorts].sort());
    expect(byConnection).toEqual(
      pdfs.map(() => ({
        connection: expect.any(Number),
        clientPort: expect.any(Number),
        receivedBytes: 60_000,
      })),
    );
    for (const sample of samples)
      for (const received of sample.byConnection)
        expect(received).toBeLessThanOrEqual(mostCarried(0.5, sample.elapsedMs));
    // One line of 0.5 Mbit/s shared by the three would have needed 2.9 s for their 180,000 bytes.
    expect(sim.uplink.receivedBytes()).toBeGreaterThan(1.2 * mostCarried(0.5, elapsedMs));
    // At 0.5 Mbit/s the bytes arrive in small steps, not a 64 KiB chunk a second.
    expect(new Set(samples.map((sample) => sample.byConnection[0])).size).toBeGreaterThanOrEqual(8);
  });

  it("a piece waits for both lines: the shared 1.5 Mbit/s binds while two connections send, a connection's own 1 Mbit/s when it sends alone", async () => {
    const { sim, clock } = await startOnLineClock({ uploadMbit: 1.5, uploadMbitPerConnection: 1 });
    const token = await getToken(sim);
    const long = pdfOf(200_000, 'long');
    const short = pdfOf(50_000, 'short');
    const uploads = [startUpload(sim, token, long), startUpload(sim, token, short)];
    const outcomes = Promise.all(uploads.map((upload) => upload.outcome));
    const samples = await sampleUntil(sim, clock, outcomes);
    expect(answered(await outcomes)).toEqual(
      [long, short].map((pdf) => ({ status: 201, sha256: sha256(pdf) })),
    );
    for (const sample of samples) {
      expect(sample.total).toBeLessThanOrEqual(mostCarried(1.5, sample.elapsedMs));
      for (const received of sample.byConnection)
        expect(received).toBeLessThanOrEqual(mostCarried(1, sample.elapsedMs));
    }
    expect(sim.uplink.receivedBytes()).toBe(250_000);
  });

  it('a new rate per connection applies to connections already sending', async () => {
    const { sim, clock } = await startOnLineClock({ uploadMbitPerConnection: 8 });
    const token = await getToken(sim);
    const upload = startUpload(sim, token, pdfOf(2_000_000, 'slowed down'));
    await clock.runUntil(() => sim.uplink.receivedBytes() >= 100_000, { what: 'the first 100,000 bytes' });
    sim.uplink.setPerConnection(0.5);
    const atChange = sim.uplink.receivedBytes();
    // Half a second of the line's time after the change.
    const samples = await sampleUntil(sim, clock, upload.outcome, (sample) => sample.elapsedMs >= 500);
    expect(samples.at(-1)?.elapsedMs).toBeGreaterThanOrEqual(500);
    expect(new Set(samples.map((sample) => sample.total)).size).toBeGreaterThanOrEqual(5);
    // The pieces already on their way cross at the old rate: at 8 Mbit/s, 50,000 bytes each.
    for (const sample of samples)
      expect(sample.total - atChange).toBeLessThanOrEqual(mostCarried(0.5, sample.elapsedMs) + 50_000);
    expect(sim.uplink.receivedBytes()).toBeLessThan(2_000_000);
    expect((await fetchJson(`${sim.baseUrl}/__simulator/state`)).body.uplink).toMatchObject({
      perConnectionMbit: 0.5,
    });
    // What the client's system still holds crosses at 0.5 Mbit/s after it gives up, as on a real
    // line: closing the simulator ends it.
    upload.giveUp();
    expect(() => sim.uplink.setPerConnection(0.0001)).toThrow(RangeError);
    await expect(startSimulator({ uploadMbitPerConnection: -1 })).rejects.toThrow(RangeError);
  });
});

describe('a shared line at 0.5 Mbit/s', () => {
  it('two connections share it: together no faster than the line, in turns, in small steps', async () => {
    const { sim, clock } = await startOnLineClock({ uploadMbit: 0.5 });
    const token = await getToken(sim);
    const pdfs = [pdfOf(40_000, 'first'), pdfOf(40_000, 'second')];
    const uploads = pdfs.map((pdf) => startUpload(sim, token, pdf));
    const outcomes = Promise.all(uploads.map((upload) => upload.outcome));
    const samples = await sampleUntil(sim, clock, outcomes);
    expect(answered(await outcomes)).toEqual(pdfs.map((pdf) => ({ status: 201, sha256: sha256(pdf) })));
    for (const sample of samples)
      expect(sample.total).toBeLessThanOrEqual(mostCarried(0.5, sample.elapsedMs));
    // When one connection had all its bytes across, the other had at least half of its own.
    const firstDone = samples.find((sample) => sample.byConnection.some((received) => received === 40_000));
    expect(Math.min(...(firstDone?.byConnection ?? [0]))).toBeGreaterThanOrEqual(20_000);
    expect(new Set(samples.map((sample) => sample.total)).size).toBeGreaterThanOrEqual(10);
  });
});
