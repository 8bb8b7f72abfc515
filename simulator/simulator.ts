import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { serveApiCall } from './api-pipeline';
import { completeCeremony, setRequestStatus } from './ceremony';
import { SimulatorClock } from './clock';
import { serveControl, type ControlTarget } from './control-api';
import { ConnectionRegistry } from './connections';
import { checkCredentials, splitRequestTarget } from './credential-checks';
import { FaultController } from './faults';
import { errorResponse, writeJson } from './http-io';
import { LoopbackListener } from './loopback-listener';
import { PolitenessWatch } from './politeness';
import type { ServiceContext } from './routes/api-route';
import { createSeededRandom } from './seeded-random';
import { ServiceState, type ServiceSettings } from './service-state';
import { TokenStore } from './token-store';
import { checkMbit, checkStallMs } from './line';
import { Uplink, type ConnectionBytes } from './uplink';
import type {
  CallRecord,
  FaultConfig,
  QueuedFault,
  SignedRequestRecord,
  SimulatorClient,
  SimulatorOptions,
  StatusChange,
  UploadRecord,
} from './types';
import { loadServiceState, saveServiceState } from './persistence';
import { REFERENCE_VARIANT, checkVariant, type ServiceVariant } from './variants';
import { violationKinds, type ViolationKind, type ViolationRecord } from './violations';
import { serveWidget } from './widget-routes';

export type {
  CallRecord,
  FaultConfig,
  FaultKind,
  OperationName,
  ParticipantRecord,
  QueuedFault,
  Scope,
  SignedRequestRecord,
  SimulatorClient,
  SimulatorOptions,
  StatusChange,
  UploadRecord,
} from './types';
export type { ConnectionBytes } from './uplink';
export { normalizeFilename } from './normalize-filename';
export {
  REFERENCE_VARIANT,
  SERVICE_VARIANTS,
  describeVariant,
  variantFromSeed,
  variantNamed,
  variantsForSuite,
  type ServiceVariant,
} from './variants';
export {
  violationKindOf,
  violationKinds,
  violationsOfKind,
  type ViolationKind,
  type ViolationRecord,
} from './violations';

/** The demo application: a local-only credential with every scope. */
export const DEMO_CLIENT: SimulatorClient = {
  clientId: 'demo-desk',
  clientSecret: 'demo-desk-secret',
  scopes: ['signing.create', 'signing.read', 'ceremony.create', 'signing.cancel', 'webhooks.manage'],
};

/** A running simulator: the signing service on loopback, plus handles to steer and inspect it. */
export interface Simulator {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  baseUrl: string;
  /** The service played where the spec says "not shown" (REFERENCE_VARIANT unless chosen). */
  variant: ServiceVariant;
  /** Stops listening and destroys open connections, keep-alive ones included. */
  close(): Promise<void>;
  /** Stops listening (clients get "connection refused") and destroys open connections; the port is kept. */
  goOffline(): Promise<void>;
  /** Listens again on the same port. */
  goOnline(): Promise<void>;
  /**
   * Resolves once no client connection is open (each was closed by its client, what was sent
   * on it received) and no call is still being answered. A test that restarts a machine waits
   * for this before it moves the clock, as a real restart gives the network time to deliver
   * what the machine sent before it went down. A connection a silent fault holds counts as
   * closed: nothing more arrives on it. Rejects after `timeoutMs`, saying what is left.
   */
  connectionsClosed(timeoutMs?: number): Promise<void>;
  addClient(client: SimulatorClient): void;
  /**
   * The client's uplink as upload bodies meet it: one line shared by every connection, and a
   * line of its own for each connection; a piece of a body waits for both (uplink.ts).
   */
  uplink: {
    /** Sets the shared line's rate in Mbit/s (`SimulatorOptions.uploadMbit`); undefined or 0: unlimited. */
    set(mbit: number | undefined): void;
    /**
     * Sets the rate of each connection's own line in Mbit/s, open connections included
     * (`SimulatorOptions.uploadMbitPerConnection`); undefined or 0: unlimited.
     */
    setPerConnection(mbit: number | undefined): void;
    /**
     * The shared line carries nothing for `ms` from now (every upload's bytes stop, connections
     * stay open and unread), then goes on at its rate. Replaces a stall under way.
     */
    stall(ms: number): void;
    /** Ends a stall now (`stall(0)`). */
    resume(): void;
    /** How much longer the shared line carries nothing (0 when it carries). */
    stalledForMs(): number;
    /** Upload body bytes received so far (that crossed the uplink), every upload together. */
    receivedBytes(): number;
    /** The same, per connection an upload call came on (numbered as accepted), in the order of their first upload. */
    receivedByConnection(): ConnectionBytes[];
  };
  /** Simulated time = real time + an offset that only moves forward. */
  clock: { now(): number; advance(ms: number): void };
  faults: {
    /** Merges into the current random-fault configuration. */
    set(config: Partial<FaultConfig>): void;
    /** Removes every random and queued fault. */
    reset(): void;
    /** The next matching requests get these faults, in order, before any random one. */
    enqueue(...faults: QueuedFault[]): void;
  };
  state: {
    requests(): SignedRequestRecord[];
    countByExternalReference(): Record<string, number>;
    uploads(): UploadRecord[];
    calls(): CallRecord[];
    /** Every protocol breach, one line each, starting with its kind tag (`violationKinds`). */
    violations(): string[];
    /** The same breaches with their kind and time, for filtering. */
    violationRecords(): ViolationRecord[];
    /** Calls that arrived and are not answered or closed yet. */
    callsUnderWay(): number;
  };
  /** Signs for every signer as if the ceremony ran (opened → in_progress → completed). */
  complete(requestId: string): void;
  /**
   * Puts a request in any status (the spec's list is "not shown"): `declined`, `expired`,
   * `cancelled`, `voided`, one no client knows (`on_hold`), or back to `in_progress`; with its
   * document's status and `finalized_at` set or cleared when given (StatusChange).
   */
  setStatus(requestId: string, change: StatusChange): void;
  /**
   * The service no longer holds this request (withdrawn or expired on its side, which spec v1
   * does not describe otherwise): its reads answer 404 signing_request_not_found.
   */
  forget(requestId: string): void;
  /** Invalidates every token issued so far. */
  revokeTokens(): void;
}

function resolveSettings(options: SimulatorOptions): ServiceSettings {
  const variant = options.variant ?? REFERENCE_VARIANT;
  checkVariant(variant);
  const durations = {
    // An explicit option wins over the variant's choice: tests pin lifetimes they depend on.
    tokenTtlSeconds: options.tokenTtlSeconds ?? variant.token.ttlSeconds,
    uploadTtlHours: options.uploadTtlHours ?? 24,
    widgetTtlSeconds: options.widgetTtlSeconds ?? 900,
    evidenceDelayMs: options.evidenceDelayMs ?? 1500,
  };
  for (const [name, value] of Object.entries(durations)) {
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`${name} must be a non-negative number, got ${value}`);
  }
  return { ...durations, variant };
}

/**
 * The path of a request target, without query string (never parsed as a URL: `//x` is a path
 * here). An absolute-form target (`http://host/path`) is served by its path.
 */
function pathOf(request: IncomingMessage): { path: string; query: string; userinfo: boolean } {
  const { originForm, userinfo } = splitRequestTarget(request.url ?? '/');
  const queryStart = originForm.indexOf('?');
  return queryStart < 0
    ? { path: originForm, query: '', userinfo }
    : { path: originForm.slice(0, queryStart), query: originForm.slice(queryStart + 1), userinfo };
}

/** The path as the call log shows it: widget tokens are secrets. */
function loggedPathOf(path: string): string {
  return path.replace(/^\/widget\/[^/]+/, '/widget/:token');
}

function countByKind(records: readonly ViolationRecord[]): Partial<Record<ViolationKind, number>> {
  const counts: Partial<Record<ViolationKind, number>> = {};
  for (const kind of violationKinds) {
    const count = records.filter((record) => record.kind === kind).length;
    if (count > 0) counts[kind] = count;
  }
  return counts;
}

/**
 * Starts the signing service simulator on 127.0.0.1: a strict implementation of
 * spec/signing-service-v1.md over real HTTP, with deterministic and random faults, a
 * controllable clock, and records of everything clients did. Resolves once it listens.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const settings = resolveSettings(options);
  const clock = new SimulatorClock(options.timeSource);
  const state = new ServiceState(clock, settings, options.clients ?? [DEMO_CLIENT]);
  const { statePath } = options;
  if (statePath) loadServiceState(state, statePath);
  const saveState = () => {
    if (statePath) saveServiceState(state, statePath);
  };
  const tokens = new TokenStore(clock, settings.tokenTtlSeconds);
  const faults = new FaultController(createSeededRandom(options.seed));
  const controlEnabled = options.control ?? true;
  const baseUrl = () => `http://127.0.0.1:${listener.port}`;
  const politeness = new PolitenessWatch((kind, description) => state.recordViolation(kind, description));
  const connections = new ConnectionRegistry(() => state.nextSequence());
  const uplink = new Uplink({
    mbit: options.uploadMbit,
    perConnectionMbit: options.uploadMbitPerConnection,
    time: options.uplinkTime,
  });
  const uplinkState = () => ({
    mbit: uplink.mbit ?? null,
    perConnectionMbit: uplink.perConnectionMbit ?? null,
    stalledForMs: Math.ceil(uplink.stalledForMs),
    receivedBytes: uplink.receivedBytes,
    connections: uplink.receivedByConnection(),
  });
  const service: ServiceContext = { state, tokens, politeness, connections, uplink, baseUrl };
  /** Cancels the timer that brings the service back online after `goOfflineFor`. */
  let cancelBackOnline = (): void => undefined;
  let closed = false;

  const complete = (requestId: string): boolean => {
    const request = state.requests.get(requestId);
    if (!request) return false;
    completeCeremony(request, clock.now());
    saveState();
    return true;
  };
  const setStatus = (requestId: string, change: StatusChange): boolean => {
    const request = state.requests.get(requestId);
    if (!request) return false;
    setRequestStatus(request, change, clock.now());
    saveState();
    return true;
  };

  const control: ControlTarget = {
    snapshot: (includeCalls) => ({
      now: new Date(clock.now()).toISOString(),
      requests: state.requestRecords(),
      countByExternalReference: state.countByExternalReference(),
      uploads: state.uploadRecords(),
      callCounts: state.callCounts(),
      totalCalls: state.calls.length,
      ...(includeCalls ? { calls: state.callRecords() } : {}),
      violations: state.violationLines(),
      violationCounts: countByKind(state.violationRecords()),
      variant: settings.variant,
      faults: faults.config(),
      queuedFaults: faults.pending(),
      uplink: uplinkState(),
    }),
    setUplink: (changes) => {
      // All checked before any applies, so a refused change leaves the uplink as it was.
      checkMbit(changes.mbit, 'mbit');
      checkMbit(changes.perConnectionMbit, 'perConnectionMbit');
      if (changes.stallMs !== undefined) checkStallMs(changes.stallMs, 'stallMs');
      if (changes.mbit !== undefined) uplink.setMbit(changes.mbit);
      if (changes.perConnectionMbit !== undefined) uplink.setPerConnectionMbit(changes.perConnectionMbit);
      if (changes.stallMs !== undefined) uplink.stall(changes.stallMs);
      return uplinkState();
    },
    setFaults: (changes, reset) => {
      if (reset) faults.reset();
      faults.set(changes);
      return faults.config();
    },
    enqueueFaults: (queued) => faults.enqueue(...queued),
    advanceClock: (ms) => {
      clock.advance(ms);
      return clock.now();
    },
    addClient: (client) => state.addClient(client),
    complete,
    setStatus,
    revokeTokens: () => tokens.revokeAll(),
    goOfflineFor: (seconds) => {
      cancelBackOnline();
      void listener.stop().then(() => {
        // On the service's time source: a test on a virtual clock says when the outage ends.
        cancelBackOnline = clock.after(seconds * 1000, () => {
          if (!closed)
            void listener
              .start()
              .catch((error: unknown) => console.error('simulator: could not go back online', error));
        });
      });
    },
  };

  async function dispatch(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { path, query, userinfo } = pathOf(request);
    if (controlEnabled && path.startsWith('/__simulator/')) {
      await serveControl(control, request, response, new URL(`http://127.0.0.1${path}?${query}`));
      return;
    }
    checkCredentials(state, request, { loggedPath: loggedPathOf(path), query, userinfo });
    if (path.startsWith('/widget/')) {
      await serveWidget(state, request, response, path);
    } else if (path === '/favicon.ico' && request.method === 'GET') {
      // Browsers ask for it when showing the widget; answering keeps the call log about the API.
      response.writeHead(204).end();
    } else {
      await serveApiCall(service, faults, request, response, path);
    }
  }

  /** Calls received and not yet answered (or given up): their answers are still to come. */
  let answering = 0;
  // No limit on how long a request may take to arrive (Node's default is 300 s): an upload on a
  // slow line takes longer (50 MiB at 0.5 Mbit/s: 14 minutes), and a silent call lasts until its
  // client gives up.
  const server = createServer({ requestTimeout: 0 }, (request, response) => {
    answering += 1;
    dispatch(request, response)
      // What a call changed outlives the process when the service keeps its data in a file.
      .then(() => {
        if (request.method !== 'GET') saveState();
      })
      .catch((error: unknown) => {
        console.error('simulator: unexpected error', request.method, pathOf(request).path, error);
        writeJson(response, errorResponse(500, 'simulator_error', 'the simulator failed; see its console'));
      })
      .finally(() => {
        answering -= 1;
      });
  });
  server.on('connection', (socket) => connections.accept(socket));
  const listener = new LoopbackListener(server, options.port ?? 0);
  await listener.start();

  return {
    baseUrl: baseUrl(),
    variant: settings.variant,
    close: async () => {
      closed = true;
      cancelBackOnline();
      await listener.stop();
    },
    goOffline: () => {
      cancelBackOnline();
      return listener.stop();
    },
    goOnline: () => {
      cancelBackOnline();
      return listener.start();
    },
    connectionsClosed: async (timeoutMs = 5_000) => {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const open = await new Promise<number>((resolve, reject) =>
          server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
        );
        // A silenced connection is open with its one call unanswered, until closed.
        const silenced = connections.silencedCount;
        if (open - silenced <= 0 && answering - silenced <= 0) return;
        if (performance.now() > deadline)
          throw new Error(
            `${open - silenced} client connection(s) still open and ${answering - silenced} call(s) still being answered after ${timeoutMs} ms`,
          );
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    },
    addClient: (client) => state.addClient(client),
    uplink: {
      set: (mbit) => uplink.setMbit(mbit),
      setPerConnection: (mbit) => uplink.setPerConnectionMbit(mbit),
      stall: (ms) => uplink.stall(ms),
      resume: () => uplink.stall(0),
      stalledForMs: () => uplink.stalledForMs,
      receivedBytes: () => uplink.receivedBytes,
      receivedByConnection: () => uplink.receivedByConnection(),
    },
    clock: { now: () => clock.now(), advance: (ms) => clock.advance(ms) },
    faults: {
      set: (config) => faults.set(config),
      reset: () => faults.reset(),
      enqueue: (...queued) => faults.enqueue(...queued),
    },
    state: {
      requests: () => state.requestRecords(),
      countByExternalReference: () => state.countByExternalReference(),
      uploads: () => state.uploadRecords(),
      calls: () => state.callRecords(),
      violations: () => state.violationLines(),
      violationRecords: () => state.violationRecords(),
      callsUnderWay: () => state.callsUnderWay,
    },
    complete: (requestId) => {
      if (!complete(requestId)) throw new Error(`no signing request ${requestId}`);
    },
    setStatus: (requestId, change) => {
      if (!setStatus(requestId, change)) throw new Error(`no signing request ${requestId}`);
    },
    forget: (requestId) => {
      if (!state.requests.delete(requestId)) throw new Error(`no signing request ${requestId}`);
      saveState();
    },
    revokeTokens: () => tokens.revokeAll(),
  };
}
