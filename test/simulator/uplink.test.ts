import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { TIMER_SLACK_MS } from '../../simulator/line';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import { fetchJson, getToken, samplePdf, startUpload, uploadPdf, type RawOutcome } from './test-support';

let simulator: Simulator | undefined;

afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

/** A PDF of exactly `bytes` (the simulator checks only the header). */
function pdfOf(bytes: number, text: string): Buffer {
  const head = samplePdf(text);
  return Buffer.concat([head, Buffer.alloc(bytes - head.length, 0x20)]);
}

describe('the uplink (uploadMbit): one link shared by every upload', () => {
  it('two uploads on two connections cross one 8 Mbit/s link together: no faster than the link, bytes counted as they arrive', async () => {
    simulator = await startSimulator({ uploadMbit: 8 });
    const sim = simulator;
    const token = await getToken(sim);
    const pdfs = [pdfOf(512 * 1024, 'first'), pdfOf(512 * 1024, 'second')];
    const total = pdfs[0]!.length + pdfs[1]!.length;
    const started = performance.now();
    let done = false;
    const uploads = Promise.all(pdfs.map((pdf) => uploadPdf(sim, token, pdf))).finally(() => (done = true));
    // What the service received, sampled while the bytes cross (1 MiB at 1,000,000 bytes a second: 1.05 s).
    const samples: number[] = [];
    while (!done) {
      samples.push(sim.uplink.receivedBytes());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const answers = await uploads;
    const elapsedMs = performance.now() - started;
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    expect(answers.map((answer) => answer.body.sha256)).toEqual(
      pdfs.map((pdf) => createHash('sha256').update(pdf).digest('hex')),
    );
    const between = samples.filter((received) => received > 0 && received < total);
    // Several distinct counts on the way: the bytes arrive at the link's pace, not at once.
    expect(new Set(between).size).toBeGreaterThanOrEqual(5);
    // A lower bound only: a loaded machine can make it slower, never faster than the link.
    expect(elapsedMs).toBeGreaterThanOrEqual(((total * 8) / 8_000_000) * 1000 - 20);
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
    sim.uplink.set(4);
    const pdf = pdfOf(100_000, 'paced');
    const started = performance.now();
    expect((await uploadPdf(sim, token, pdf)).status).toBe(201);
    // 100,000 bytes at 500,000 bytes a second.
    expect(performance.now() - started).toBeGreaterThanOrEqual(180);
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

/** What the simulator had received, per connection (in the order of their first upload), `elapsedMs` after the start. */
interface Sample {
  elapsedMs: number;
  total: number;
  byConnection: number[];
}

/** Samples the simulator's own counters until `running()` turns false; the time is read after the counters. */
async function sampleWhile(sim: Simulator, start: number, running: () => boolean): Promise<Sample[]> {
  const samples: Sample[] = [];
  while (running()) {
    const total = sim.uplink.receivedBytes();
    const byConnection = sim.uplink.receivedByConnection().map((connection) => connection.receivedBytes);
    samples.push({ elapsedMs: performance.now() - start, total, byConnection });
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return samples;
}

/** The most a line of `mbit` can have carried in `elapsedMs` (its 10 ms burst included). */
function mostCarried(mbit: number, elapsedMs: number): number {
  return ((mbit * 1_000_000) / 8 / 1000) * (elapsedMs + TIMER_SLACK_MS);
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
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
    simulator = await startSimulator({ uploadMbitPerConnection: 0.5 });
    const sim = simulator;
    const token = await getToken(sim);
    const pdfs = [0, 1, 2].map((index) => pdfOf(60_000, `connection ${index}`));
    const start = performance.now();
    const uploads = pdfs.map((pdf) => startUpload(sim, token, pdf));
    let done = false;
    const outcomes = Promise.all(uploads.map((upload) => upload.outcome)).finally(() => (done = true));
    const samples = await sampleWhile(sim, start, () => !done);
    const elapsedMs = performance.now() - start;
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
    simulator = await startSimulator({ uploadMbit: 1.5, uploadMbitPerConnection: 1 });
    const sim = simulator;
    const token = await getToken(sim);
    const long = pdfOf(200_000, 'long');
    const short = pdfOf(50_000, 'short');
    const start = performance.now();
    const uploads = [startUpload(sim, token, long), startUpload(sim, token, short)];
    let done = false;
    const outcomes = Promise.all(uploads.map((upload) => upload.outcome)).finally(() => (done = true));
    const samples = await sampleWhile(sim, start, () => !done);
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
    simulator = await startSimulator({ uploadMbitPerConnection: 8 });
    const sim = simulator;
    const token = await getToken(sim);
    const upload = startUpload(sim, token, pdfOf(2_000_000, 'slowed down'));
    await waitUntil(() => sim.uplink.receivedBytes() >= 100_000);
    sim.uplink.setPerConnection(0.5);
    const changedAt = performance.now();
    const atChange = sim.uplink.receivedBytes();
    const samples: { elapsedMs: number; received: number }[] = [];
    while (samples.length < 40) {
      const received = sim.uplink.receivedBytes() - atChange;
      samples.push({ elapsedMs: performance.now() - changedAt, received });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The pieces already on their way cross at the old rate: at 8 Mbit/s, 50,000 bytes each.
    for (const sample of samples)
      expect(sample.received).toBeLessThanOrEqual(mostCarried(0.5, sample.elapsedMs) + 50_000);
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
    simulator = await startSimulator({ uploadMbit: 0.5 });
    const sim = simulator;
    const token = await getToken(sim);
    const pdfs = [pdfOf(40_000, 'first'), pdfOf(40_000, 'second')];
    const start = performance.now();
    const uploads = pdfs.map((pdf) => startUpload(sim, token, pdf));
    let done = false;
    const outcomes = Promise.all(uploads.map((upload) => upload.outcome)).finally(() => (done = true));
    const samples = await sampleWhile(sim, start, () => !done);
    expect(answered(await outcomes)).toEqual(pdfs.map((pdf) => ({ status: 201, sha256: sha256(pdf) })));
    for (const sample of samples)
      expect(sample.total).toBeLessThanOrEqual(mostCarried(0.5, sample.elapsedMs));
    // When one connection had all its bytes across, the other had at least half of its own.
    const firstDone = samples.find((sample) => sample.byConnection.some((received) => received === 40_000));
    expect(Math.min(...(firstDone?.byConnection ?? [0]))).toBeGreaterThanOrEqual(20_000);
    expect(new Set(samples.map((sample) => sample.total)).size).toBeGreaterThanOrEqual(10);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
