import { expect } from 'vitest';
import { connectionTester } from '../../main/app/connection-tester';
import { createDeskService, type DeskService, type DeskServiceDeps } from '../../main/app/desk-service';
import type { CeremonyOpener, DemoProvider, Dialogs } from '../../main/app/ports';
import { openProfileRegistry } from '../../main/app/profile-registry';
import type { CredentialStore } from '../../main/credentials/credential-store';
import type { DataDir } from '../../main/app/desk-core';
import { silentLogger } from '../../main/base/log';
import type { DeskHandlers } from '../../shared/ipc/contract';
import type { EngineStateView } from '../../shared/ipc/views';
import type { Clock } from '../../main/time/clock';
import type { VirtualClock } from '../../main/time/virtual-clock';
import type { Simulator } from '../../simulator/simulator';
import { writePdf, type TempFolder } from './pdf-files';

/** Short retries, so tests against the simulator run fast. */
export const TEST_TUNING = {
  retry: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 3, maxRetryAfterMs: 1_000 },
};

/** A desk service over `dataDir` as the browser host builds it, with no-op dialogs, windows and notifications. */
export function createTestDeskService(
  dataDir: DataDir,
  credentials: CredentialStore,
  options: {
    readonly emit?: DeskServiceDeps['emit'];
    readonly demo?: DemoProvider;
    /** The OS's preferred locales (default: none, so English). */
    readonly systemLocales?: readonly string[];
    /**
     * The one clock of the desk: its connections (client, engine, poller), connection tests and
     * keychain notice. A test on a `VirtualClock` passes it here, and opens `dataDir` and its
     * simulators on it too; without it, the system's.
     */
    readonly clock?: Clock;
    readonly dialogs?: Partial<Dialogs>;
    readonly ceremony?: CeremonyOpener;
  } = {},
): DeskService {
  const tuning = { ...TEST_TUNING, ...(options.clock ? { clock: options.clock } : {}) };
  return createDeskService({
    host: 'browser',
    version: 'test',
    dataDir,
    profiles: openProfileRegistry(dataDir.path, credentials, options.clock),
    dialogs: {
      pickPdfs: async () => [],
      pickFolder: async () => undefined,
      pickManifest: async () => undefined,
      pickReportPath: async () => undefined,
      ...options.dialogs,
    },
    ceremony: options.ceremony ?? { open: async () => undefined },
    notifier: { notify: () => undefined },
    emit: options.emit ?? (() => undefined),
    ...(options.demo ? { demo: options.demo } : {}),
    logger: silentLogger,
    tuning,
    systemLocales: () => options.systemLocales ?? [],
    testConnection: connectionTester(silentLogger, tuning),
  });
}

/** Polls `probe` (in real time) until it gives a value, or fails naming `what`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  for (const started = Date.now(); Date.now() - started < ms;) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${what}: not within ${ms} ms`);
}

/**
 * Lets `clock`'s time run until `probe` gives a value (virtual waits pass at once, calls on the
 * wire are waited for), or fails naming `what` after `withinMs` of virtual time (default an hour).
 */
export function outcome<T>(
  clock: VirtualClock,
  what: string,
  probe: () => Promise<T | undefined>,
  withinMs = 3_600_000,
): Promise<T> {
  return clock.when(probe, { what, withinMs });
}

/**
 * "Send batch" as the person does it: the review (`sending.review`), confirmed as it is
 * (`sending.start` with what was reviewed). Throws the review's connection problem when it
 * cannot be confirmed.
 */
export async function sendAsReviewed(handlers: DeskHandlers, batchId: string): Promise<EngineStateView> {
  const review = await handlers['sending.review'](batchId);
  if (!review.reviewed) throw new Error(review.connectionProblem ?? 'nothing to confirm');
  return handlers['sending.start'](batchId, review.reviewed);
}

/** A draft batch of one PDF named and referenced `reference`, with one signer (Ann); its id. */
export async function draftOneDocumentBatch(
  handlers: DeskHandlers,
  files: TempFolder,
  reference: string,
): Promise<string> {
  const batch = await handlers['batches.create'](reference);
  await handlers['documents.addPaths'](batch.id, [await writePdf(files, `${reference}.pdf`, reference)]);
  const [document] = (await handlers['batches.get'](batch.id)).documents;
  await handlers['documents.update'](batch.id, document!.id, {
    externalReference: reference,
    recipients: [{ participant_type: 'signer', role: 'Employee', name: 'Ann', email: 'ann@example.com' }],
  });
  return batch.id;
}

/**
 * A batch of one PDF (one signer) sent with the active connection, until prepared (on `clock`'s
 * time when given); its id.
 */
export async function sendOneDocumentBatch(
  handlers: DeskHandlers,
  files: TempFolder,
  reference: string,
  clock?: VirtualClock,
): Promise<string> {
  const batchId = await draftOneDocumentBatch(handlers, files, reference);
  await sendAsReviewed(handlers, batchId);
  const prepared = async () =>
    (await handlers['batches.get'](batchId)).documents[0]?.phase === 'prepared' ? true : undefined;
  await (clock
    ? outcome(clock, `${reference} prepared`, prepared)
    : until(`${reference} prepared`, prepared));
  return batchId;
}

/** No read reached a service that does not hold the request (a read with another connection answers 404). */
export function expectNoForeignReads(services: readonly Simulator[]): void {
  for (const sim of services) {
    const own = new Set(sim.state.requests().map((request) => request.id));
    const reads = sim.state.calls().filter((call) => call.operation === 'readSigningRequest');
    expect(reads.filter((call) => call.status === 404 && !call.fault)).toEqual([]);
    for (const call of reads) expect(own.has(call.path.split('/').at(-1) ?? '')).toBe(true);
  }
}

/**
 * Deletes a connection as the person does who read what stops and typed its name: the deletion
 * confirms what `profiles.dependents` counts now (main refuses a deletion that confirms less).
 */
export async function deleteConnectionAnyway(handlers: DeskHandlers, name: string): Promise<void> {
  const dependents = await handlers['profiles.dependents'](name);
  await handlers['profiles.delete'](name, { dependents: dependents.openRequests + dependents.unfinished });
}
