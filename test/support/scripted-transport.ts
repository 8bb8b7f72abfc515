/**
 * A signing service on paper, for the service client's rules without a server: a transport that
 * answers each attempt as a test writes it, on a virtual clock, and records every attempt as the
 * service received it (test/main/client/transport-*.test.ts).
 */
import { Secret } from '../../main/base/secret';
import { ServiceClient } from '../../main/client/service-client';
import type { HttpOutcome, HttpRequest, Transport } from '../../main/client/transport';
import { VirtualClock } from '../../main/time/virtual-clock';
import type { CreateSigningRequestBody } from '../../shared/service/wire';

/** One attempt of an API call as the service received it. */
export interface Attempt {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The body as sent (every API call here sends a string, or nothing). */
  readonly body: string | undefined;
  /** When it left, in virtual ms since the clock started. */
  readonly at: number;
}

/** An answer the service sends only after `afterMs` of the clock (a slow service). */
export interface LateAnswer {
  readonly afterMs: number;
  readonly outcome: HttpOutcome;
}

export type ScriptedAnswer = HttpOutcome | LateAnswer;

/**
 * The answers, in turn: one list for every API call, or one list per path when several calls
 * run at once (the order in which they interleave is then irrelevant).
 */
export type Script = readonly ScriptedAnswer[] | Readonly<Record<string, readonly ScriptedAnswer[]>>;

/** When the virtual clock starts, by the wall clock: a whole second, so HTTP-dates are exact. */
export const CLOCK_START = Date.UTC(2026, 0, 5, 9, 0, 0);

export const BASE_URL = 'https://sign.example.test';
export const CREATE_PATH = '/api/v1/signing-requests';
export const PARTICIPANTS_PATH = '/api/v1/signing-requests/sr_1/participants';

/**
 * The token endpoint grants `token-1`, `token-2`… in turn (valid an hour); every other call gets
 * the next answer of its script, and a call beyond it fails the test.
 */
export class ScriptedTransport implements Transport {
  readonly attempts: Attempt[] = [];
  tokensGranted = 0;
  readonly #clock: VirtualClock;
  readonly #script: Map<string | undefined, ScriptedAnswer[]>;

  constructor(clock: VirtualClock, script: Script) {
    this.#clock = clock;
    this.#script = isList(script)
      ? new Map([[undefined, [...script]]])
      : new Map(Object.entries(script).map(([path, answers]) => [path, [...answers]]));
  }

  /** The attempts of one path, in the order they left. */
  attemptsAt(path: string): Attempt[] {
    return this.attempts.filter((attempt) => attempt.path === path);
  }

  async send(request: HttpRequest): Promise<HttpOutcome> {
    const path = new URL(request.url).pathname;
    if (path === '/oauth/token') {
      this.tokensGranted += 1;
      return answered(200, {
        access_token: `token-${this.tokensGranted}`,
        token_type: 'Bearer',
        expires_in: 3600,
      });
    }
    this.attempts.push({
      method: request.method,
      path,
      headers: request.headers,
      body: typeof request.body === 'string' ? request.body : undefined,
      at: this.#clock.monotonic(),
    });
    const answers = this.#script.get(this.#script.has(path) ? path : undefined);
    const next = answers?.shift();
    if (next === undefined) throw new Error(`no answer written for attempt ${this.attempts.length}: ${path}`);
    if (!('afterMs' in next)) return next;
    await this.#clock.sleep(next.afterMs);
    return next.outcome;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function isList(script: Script): script is readonly ScriptedAnswer[] {
  return Array.isArray(script);
}

export function answered(status: number, body?: unknown, headers: Record<string, string> = {}): HttpOutcome {
  return {
    kind: 'answered',
    status,
    headers: { 'content-type': 'application/json', ...headers },
    text: body === undefined ? '' : JSON.stringify(body),
  };
}

/** The service's error body (spec §7). */
export function refusal(status: number, code: string, headers: Record<string, string> = {}): HttpOutcome {
  return answered(status, { error: { code, message: `refused: ${code}` } }, headers);
}

/** A 404 from a gateway in front of the service: no service error body. */
export const GATEWAY_NOT_FOUND: HttpOutcome = {
  kind: 'answered',
  status: 404,
  headers: { 'content-type': 'text/html' },
  text: '<html><body>Not Found</body></html>',
};

/** The request left, and its answer never came back: the connection dropped mid-way. */
export const LOST: HttpOutcome = {
  kind: 'network',
  mayHaveReachedService: true,
  timedOut: false,
  errorCode: 'ECONNRESET',
};

/** The request left, and no answer came within the call's deadline. */
export const TIMED_OUT: HttpOutcome = {
  kind: 'network',
  mayHaveReachedService: true,
  timedOut: true,
  errorCode: 'ETIMEDOUT',
};

/** The connection was refused: the request certainly never reached the service. */
export const REFUSED: HttpOutcome = {
  kind: 'network',
  mayHaveReachedService: false,
  timedOut: false,
  errorCode: 'ECONNREFUSED',
};

export function late(afterMs: number, outcome: HttpOutcome): LateAnswer {
  return { afterMs, outcome };
}

/** The service's answer to a creation: request sr_1 was created. */
export const CREATED = answered(201, { id: 'sr_1' });

export const CREATION_BODY: CreateSigningRequestBody = {
  external_reference: 'REF-1',
  document: { upload_id: 'upl_1' },
  recipients: [{ participant_type: 'signer', role: 'Signer', name: 'Ada', email: 'ada@example.com' }],
};

/** The Idempotency-Key the caller stored before the creation's first attempt. */
export const KEY = 'key-stored-before-the-first-attempt';

export const PARTICIPANT = {
  participant_type: 'observer',
  role: 'Observer',
  name: 'Grace',
  email: 'grace@example.com',
} as const;

export const PARTICIPANT_ADDED = answered(201, { participant: { participant_id: 'p_1' } });

/**
 * A client with the default retry policy over a scripted transport. Its jitter always draws
 * 0.5, so each backoff is exactly half of its ceiling.
 */
export function scriptedClient(script: Script) {
  const clock = new VirtualClock({ startAt: CLOCK_START });
  const transport = new ScriptedTransport(clock, script);
  const client = new ServiceClient({
    baseUrl: BASE_URL,
    clientId: 'desk',
    clientSecret: new Secret('scripted-secret'),
    clock,
    transport,
    random: () => 0.5,
  });
  return { clock, transport, client };
}

/** What an attempt asked the service to do, without when it left. */
export function requestOf(attempt: Attempt | undefined) {
  if (attempt === undefined) throw new Error('no such attempt');
  const { at: _at, ...request } = attempt;
  return request;
}
