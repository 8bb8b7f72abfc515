import { clockReading } from '../../support/clocks';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { READ_SPACING_MS, ReadSpacing } from '../../../main/client/read-spacing';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { expectOk, makeTestClient, uploadSourceOf } from '../../support/client-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';

/** The promise: two reads of one request never arrive at the service less than 5 s apart. */
const FIVE_SECONDS = 5_000;

/** The service and the client on one virtual clock: five seconds between reads take none. */
let sim: Simulator;
let clock: VirtualClock;
let files: TempFolder;
let pdfPath: string;

beforeAll(async () => {
  files = makeTempFolder();
  pdfPath = await writePdf(files, 'spacing.pdf', 'Read spacing');
});
afterAll(() => files.remove());
beforeEach(async () => {
  ({ sim, clock } = await startVirtualSimulator({ seed: 5 }));
});
afterEach(async () => {
  await sim.close();
});

function testClient() {
  return makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock }).client;
}

/** Lets virtual time run until `work` (reads waiting their turn) has ended. */
function run<T>(work: Promise<T>): Promise<T> {
  return clock.complete(work);
}

async function createRequest(client: ReturnType<typeof testClient>, reference: string): Promise<string> {
  const upload = expectOk(await run(client.uploadDocument(uploadSourceOf(pdfPath))));
  const created = expectOk(
    await run(
      client.createSigningRequest(
        {
          external_reference: reference,
          document: { upload_id: upload.upload_id },
          recipients: [{ participant_type: 'signer', role: 'Signer', name: 'Ada', email: 'ada@example.com' }],
        },
        randomUUID(),
      ),
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
    await clock.advance(READ_SPACING_MS);
    const reads = [client.getSigningRequest(id), client.getSigningRequest(id), client.getSigningRequest(id)];
    // Another request is not spaced against this one: it is read at this very instant.
    const started = clock.monotonic();
    expectOk(await run(client.getSigningRequest(other)));
    expect(clock.monotonic() - started).toBe(0);
    for (const read of await run(Promise.all(reads))) expect(expectOk(read).id).toBe(id);
    const arrivals = readArrivals(id);
    expect(arrivals).toHaveLength(3);
    // Each as soon as its turn came: the spacing, no more.
    for (const gap of gaps(arrivals)) {
      expect(gap).toBeGreaterThanOrEqual(FIVE_SECONDS);
      expect(gap).toBe(READ_SPACING_MS);
    }
  });

  it('a call’s own retry of a read waits its turn too', async () => {
    const client = testClient();
    const id = await createRequest(client, 'SPACE-3');
    sim.faults.enqueue({ kind: '503', retryAfterSeconds: 0, pathPattern: `/signing-requests/${id}$` });
    expectOk(await run(client.getSigningRequest(id)));
    const arrivals = readArrivals(id);
    expect(arrivals).toHaveLength(2);
    expect(gaps(arrivals)[0]).toBeGreaterThanOrEqual(FIVE_SECONDS);
    expect(gaps(arrivals)[0]).toBe(READ_SPACING_MS);
  });

  it('the read by which a prepare resolves a prepare_conflict is spaced against other reads', async () => {
    const client = testClient();
    const id = await createRequest(client, 'SPACE-4');
    expectOk(await run(client.prepareSigningRequest(id)));
    expectOk(await run(client.getSigningRequest(id)));
    const again = expectOk(await run(client.prepareSigningRequest(id)));
    expect(again.alreadyPrepared).toBe(true);
    const arrivals = readArrivals(id);
    expect(arrivals).toHaveLength(2);
    expect(gaps(arrivals)[0]).toBeGreaterThanOrEqual(FIVE_SECONDS);
    expect(gaps(arrivals)[0]).toBe(READ_SPACING_MS);
  });

  it('a read that waited longer than its token lives leaves with a fresh token, not an expired one', async () => {
    await sim.close();
    ({ sim } = await startVirtualSimulator({ seed: 5, tokenTtlSeconds: 2 }, clock));
    const client = testClient();
    const id = await createRequest(client, 'SPACE-6');
    expectOk(await run(client.getSigningRequest(id)));
    expectOk(await run(client.getSigningRequest(id)));
    expect(sim.state.calls().filter((call) => call.status === 401)).toEqual([]);
    expect(gaps(readArrivals(id))[0]).toBeGreaterThanOrEqual(FIVE_SECONDS);
    expect(gaps(readArrivals(id))[0]).toBe(READ_SPACING_MS);
  });

  it('a read waiting its turn can be aborted: it rejects at once and nothing leaves', async () => {
    const client = testClient();
    const id = await createRequest(client, 'SPACE-5');
    expectOk(await run(client.getSigningRequest(id)));
    const attempts: number[] = [];
    const controller = new AbortController();
    clock.timer(100, () => controller.abort(new Error('window closed')));
    const started = clock.monotonic();
    await run(
      expect(
        client.getSigningRequest(id, {
          signal: controller.signal,
          onAttempt: (attempt) => attempts.push(attempt),
        }),
      ).rejects.toThrow('window closed'),
    );
    // At the abort, not at its turn 5 s later.
    expect(clock.monotonic() - started).toBe(100);
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
