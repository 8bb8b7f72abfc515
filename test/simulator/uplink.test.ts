import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import { fetchJson, getToken, samplePdf, uploadPdf } from './test-support';

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
      receivedBytes: 0,
    });
    sim.uplink.set(4);
    const pdf = pdfOf(100_000, 'paced');
    const started = performance.now();
    expect((await uploadPdf(sim, token, pdf)).status).toBe(201);
    // 100,000 bytes at 500,000 bytes a second.
    expect(performance.now() - started).toBeGreaterThanOrEqual(180);
    expect((await fetchJson(`${sim.baseUrl}/__simulator/state`)).body.uplink).toEqual({
      mbit: 4,
      receivedBytes: 100_000,
    });
    expect(() => sim.uplink.set(-1)).toThrow(RangeError);
    // Slower than 1 kbit/s would silently become no limit at all (setTimeout's cap).
    expect(() => sim.uplink.set(1e-12)).toThrow(RangeError);
    await expect(startSimulator({ uploadMbit: 1e-12 })).rejects.toThrow(RangeError);
  });
});
