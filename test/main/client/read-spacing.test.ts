import { clockReading } from '../../support/clocks';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { READ_SPACING_MS, ReadSpacing } from '../../../main/client/read-spacing';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../../simulator/simulator';
import { expectOk, makeTestClient, uploadSourceOf } from '../../support/client-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';

/** The promise: two reads of one request never arrive at the service less than 5 s apart. */
const FIVE_SECONDS = 5_000;

let sim: Simulator;
let files: TempFolder;
let pdfPath: string;

beforeAll(async () => {
  files = makeTempFolder();
  pdfPath = await writePdf(files, 'spacing.pdf', 'Read spacing');
});
afterAll(() => files.remove());
beforeEach(async () => {
  sim = await startSimulator({ seed: 5 });
});
afterEach(async () => {
  await sim.close();
});

function testClient() {
  return makeTestClient(sim.baseUrl, DEMO_CLIENT).client;
}

async function createRequest(client: ReturnType<typeof testClient>, reference: string): Promise<string> {
  const upload = expectOk(await client.uploadDocument(uploadSourceOf(pdfPath)));
  const created = expectOk(
    await client.createSigningRequest(
      {
        external_reference: reference,
        document: { upload_id: upload.upload_id },
        recipients: [{ participant_type: 'signer', role: 'Signer', name: 'Ada', email: 'ada@example.com' }],
      },
      randomUUID(),
    ),
  );
  if (created.id === undefined) throw new Error('the simulator always returns an id');
  return created.id;
}

/** Arrival times (simulator clock) of the reads of one request. */
function readArrivals(requestId: string): number[] {
  return sim.state
    .calls()
    .filter((call) => call.method === 'GET' && call.path === `/api/v1/signing-requests/${requestId}`)
    .map((call) => Date.parse(call.at))
    .sort((a, b) => a - b);
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((time, index) => time - (times[index] ?? 0));
}

describe('read spacing', () => {
  it('is exported and absorbs loopback jitter above 5 s', () => {
    expect(READ_SPACING_MS).toBe(5_050);
  });

  it('three callers reading the same request at once: each read arrives 5 s after the one before', async () => {
    const client = testClient();
    const id = await createRequest(client, 'SPACE-1');
    const other = await createRequest(client, 'SPACE-2');
    // Past the hold on a new client's first reads (another process may have just read them).
    await new Promise((resolve) => setTimeout(resolve, READ_SPACING_MS));
    const reads = [client.getSigningRequest(id), client.getSigningRequest(id), client.getSigningRequest(id)];
    // Another request is not spaced against this one.
    const started = Date.now();
    expectOk(await client.getSigningRequest(other));
    expect(Date.now() - started).toBeLessThan(1000);
    for (const read of await Promise.all(reads)) expect(expectOk(read).id).toBe(id);
    const arrivals = readArrivals(id);
    expect(arrivals).toHaveLength(3);
    for (const gap of gaps(arrivals)) expect(gap).toBeGreaterThanOrEqual(FIVE_SECONDS);
  }, 30_000);

  it('a call’s own retry of a read waits its turn too', async () => {
    const client = testClient();
    const id = await createRequest(client, 'SPACE-3');
    sim.faults.enqueue({ kind: '503', retryAfterSeconds: 0, pathPattern: `/signing-requests/${id}$` });
    expectOk(await client.getSigningRequest(id));
    const arrivals = readArrivals(id);
    expect(arrivals).toHaveLength(2);
    expect(gaps(arrivals)[0]).toBeGreaterThanOrEqual(FIVE_SECONDS);
  }, 30_000);

  it('the read by which a prepare resolves a prepare_conflict is spaced against other reads', async () => {
    const client = testClient();
    const id = await createRequest(client, 'SPACE-4');
    expectOk(await client.prepareSigningRequest(id));
    expectOk(await client.getSigningRequest(id));
    const again = expectOk(await client.prepareSigningRequest(id));
    expect(again.alreadyPrepared).toBe(true);
    const arrivals = readArrivals(id);
    expect(arrivals).toHaveLength(2);
    expect(gaps(arrivals)[0]).toBeGreaterThanOrEqual(FIVE_SECONDS);
  }, 30_000);

  it('a read that waited longer than its token lives leaves with a fresh token, not an expired one', async () => {
    await sim.close();
    sim = await startSimulator({ seed: 5, tokenTtlSeconds: 2 });
    const client = testClient();
    const id = await createRequest(client, 'SPACE-6');
    expectOk(await client.getSigningRequest(id));
    expectOk(await client.getSigningRequest(id));
    expect(sim.state.calls().filter((call) => call.status === 401)).toEqual([]);
    expect(gaps(readArrivals(id))[0]).toBeGreaterThanOrEqual(FIVE_SECONDS);
  }, 30_000);

  it('a read waiting its turn can be aborted: it rejects at once and nothing leaves', async () => {
    const client = testClient();
    const id = await createRequest(client, 'SPACE-5');
    expectOk(await client.getSigningRequest(id));
    const attempts: number[] = [];
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('window closed')), 100);
    const started = Date.now();
    await expect(
      client.getSigningRequest(id, {
        signal: controller.signal,
        onAttempt: (attempt) => attempts.push(attempt),
      }),
    ).rejects.toThrow('window closed');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(attempts).toEqual([]);
    expect(readArrivals(id)).toHaveLength(1);
  });
});

describe('ReadSpacing', () => {
  it('counts from the last start of the same key only', () => {
    let now = 0;
    const spacing = new ReadSpacing(
      READ_SPACING_MS,
      clockReading(() => now),
    );
    now = READ_SPACING_MS;
    expect(spacing.remainingMs('sr_1')).toBe(0);
    spacing.markStarted('sr_1');
    now += 1000;
    expect(spacing.remainingMs('sr_1')).toBe(READ_SPACING_MS - 1000);
    expect(spacing.remainingMs('sr_2')).toBe(0);
    now += READ_SPACING_MS;
    expect(spacing.remainingMs('sr_1')).toBe(0);
  });

  it('holds every first read until the spacing has passed since the client began: the process before it may have just read', () => {
    let now = 10_000;
    const spacing = new ReadSpacing(
      READ_SPACING_MS,
      clockReading(() => now),
    );
    expect(spacing.remainingMs('sr_1')).toBe(READ_SPACING_MS);
    now += 2_000;
    expect(spacing.remainingMs('sr_2')).toBe(READ_SPACING_MS - 2_000);
    now += READ_SPACING_MS;
    expect(spacing.remainingMs('sr_1')).toBe(0);
  });
});
