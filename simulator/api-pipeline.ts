import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { SimulatorClock } from './clock';
import { pauseFor, untilClosed, type BodyCrossing, type BodyHold } from './body-crossing';
import { CallTracker } from './call-tracker';
import type { FaultController, FaultDecision } from './faults';
import {
  consumeBody,
  errorResponse,
  headerValue,
  oauthErrorResponse,
  writeApiAnswer,
  type ApiResponse,
} from './http-io';
import type { ServiceContext } from './routes/api-route';
import { matchApiRoute, type RouteMatch } from './routes/api-routes';

/** Faults and latency hit only the token endpoint and the v1 API. */
/** Holds the answer back `ms` (the call's latency), telling the clock when the caller hangs up. */
async function holdAnswer(clock: SimulatorClock, ms: number, socket: Socket): Promise<void> {
  if (socket.destroyed) return;
  const hungUp = new AbortController();
  const onClose = () => hungUp.abort();
  socket.once('close', onClose);
  try {
    await clock.wait(ms, hungUp.signal);
  } finally {
    socket.off('close', onClose);
  }
}

function isFaultEligible(path: string): boolean {
  return path === '/oauth/token' || path.startsWith('/api/v1/');
}

const NO_FAULT: FaultDecision = { kind: null, retryAfterSeconds: 0, latencyMs: 0 };

/** Faults after which the call is still processed (the others answer, drop or go silent instead). */
function isProcessed(decision: FaultDecision): boolean {
  const { kind } = decision;
  return kind === null || kind === 'dropAfter' || kind === 'silentAfter' || kind === 'stall';
}

/** The hold a `silent` or `stall` fault puts in an upload's body. */
function holdOf(decision: FaultDecision): BodyHold | undefined {
  const afterBytes = decision.afterBytes ?? 0;
  if (decision.kind === 'silent') return { kind: 'silent', afterBytes };
  if (decision.kind === 'stall') return { kind: 'stall', afterBytes, ms: decision.stallMs ?? 0 };
  return undefined;
}

function acceptsJson(accept: string): boolean {
  const value = accept.toLowerCase();
  return value.includes('application/json') || value.includes('*/*') || value.includes('application/*');
}

/** A reverse proxy's 404 page: no JSON, no error code, nothing of the service. */
const GATEWAY_404_PAGE =
  '<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n' +
  '<body><center><h1>404 Not Found</h1></center><hr><center>gateway</center></body></html>\n';

function faultAnswer(decision: FaultDecision): ApiResponse {
  // A key rotation on the service's side: for a moment it refuses to issue tokens (RFC 6749 §5.2).
  if (decision.tokenRefusal === 'invalid_client')
    return oauthErrorResponse(401, 'invalid_client', 'client authentication failed (refused by a fault)');
  if (decision.tokenRefusal === 'invalid_grant')
    return oauthErrorResponse(400, 'invalid_grant', 'the grant was refused (refused by a fault)');
  if (decision.reject) {
    return errorResponse(decision.reject.status, decision.reject.code, 'rejected by a queued fault');
  }
  if (decision.kind === 'gateway404') return { status: 404, body: null, html: GATEWAY_404_PAGE };
  const retryAfterSeconds = decision.retryAfterSeconds;
  return decision.kind === '429'
    ? {
        ...errorResponse(429, 'rate_limited', 'too many requests; retry after the Retry-After delay'),
        retryAfterSeconds,
      }
    : {
        ...errorResponse(503, 'upstream_unavailable', 'the service is temporarily unavailable'),
        retryAfterSeconds,
      };
}

function bearerToken(request: IncomingMessage): string | undefined {
  const match = /^bearer\s+(\S+)\s*$/i.exec(headerValue(request, 'authorization') ?? '');
  return match?.[1];
}

const INVALID_TOKEN = errorResponse(
  401,
  'invalid_token',
  'the access token is missing, invalid, revoked or expired',
  {
    'www-authenticate': 'Bearer error="invalid_token"',
  },
);

/** Routing, Accept, authentication and scope, then the operation's handler. */
async function answerCall(
  service: ServiceContext,
  request: IncomingMessage,
  path: string,
  match: RouteMatch,
  tracker: CallTracker,
  caller: Caller,
  crossing: BodyCrossing | undefined,
): Promise<ApiResponse | null> {
  const method = request.method ?? 'GET';
  if (match.kind === 'notFound') return errorResponse(404, 'not_found', `no such endpoint: ${path}`);
  if (match.kind === 'wrongMethod') {
    return errorResponse(405, 'method_not_allowed', `${method} is not allowed on ${path}`, {
      allow: match.allowed.join(', '),
    });
  }
  const accept = headerValue(request, 'accept');
  if (accept === undefined || accept.trim() === '') {
    service.state.recordViolation('accept', `${method} ${path} without Accept: application/json`);
  } else if (!acceptsJson(accept)) {
    return errorResponse(406, 'not_acceptable', 'this endpoint answers application/json only');
  }

  const { route, params } = match;
  let grant = null;
  if (route.auth) {
    const token = bearerToken(request);
    grant = token === undefined ? undefined : service.tokens.verify(token);
    if (!grant) return INVALID_TOKEN;
    tracker.clientId = grant.clientId;
    if (!grant.scopes.includes(route.auth.scope)) {
      return errorResponse(403, route.auth.forbiddenCode, `the token lacks the scope ${route.auth.scope}`, {
        'www-authenticate': `Bearer error="insufficient_scope", scope="${route.auth.scope}"`,
      });
    }
  }
  return route.handle({
    request,
    method,
    path,
    params,
    grant,
    service,
    crossing,
    identifyClient: (clientId) => {
      tracker.clientId = clientId;
    },
    noteFormClient: (clientId) => {
      caller.formClientId = clientId;
    },
  });
}

/** A body larger than this is not read to its end before an early answer; the connection is closed instead. */
const MAX_DRAINED_BYTES = 64 * 1024 * 1024;

/**
 * Reads and discards what remains of the request body before an early answer (fault, auth
 * error, wrong content type), so every client sees the answer on a reusable connection rather
 * than a reset while it is still sending. Null when the client went away meanwhile.
 */
async function afterDrainingBody(
  request: IncomingMessage,
  answer: ApiResponse,
  onChunk: (chunk: Buffer) => void,
  crossing: BodyCrossing | undefined,
): Promise<ApiResponse | null> {
  const drained = await consumeBody(request, MAX_DRAINED_BYTES, onChunk, crossing);
  if (drained.kind === 'aborted') return null;
  return drained.kind === 'tooLarge' && !drained.drained ? { ...answer, closeConnection: true } : answer;
}

/** Who sent a call, as politeness rules see it. */
interface Caller {
  /** The client of the bearer token (expired or not), for API calls. */
  tokenClientId: string | undefined;
  /** The `client_id` the token form gave, for token calls. */
  formClientId: string | undefined;
  address: string;
}

function callerLabel(caller: Caller): string {
  return caller.tokenClientId ?? caller.formClientId ?? caller.address;
}

/** The `client_id` of a drained token form: the first 64 KiB are kept to find it. */
function formClientCollector(caller: Caller): { onChunk(chunk: Buffer): void; finish(): void } {
  const chunks: Buffer[] = [];
  let kept = 0;
  return {
    onChunk: (chunk) => {
      if (kept >= 64 * 1024) return;
      chunks.push(chunk);
      kept += chunk.length;
    },
    finish: () => {
      if (chunks.length === 0 || caller.formClientId !== undefined) return;
      const clientId = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('client_id');
      if (clientId) caller.formClientId = clientId;
    },
  };
}

function describeUnknownEndpoint(method: string, path: string, match: RouteMatch): string {
  const defined = match.kind === 'wrongMethod' ? ` (the spec defines ${match.allowed.join(', ')} there)` : '';
  return `${method} ${path} is not an endpoint of the spec${defined}`;
}

/**
 * Serves one call to anything but the widget and the control API (unknown paths answer 404
 * here): decides its fault, processes it (unless the fault strikes first), waits the
 * configured latency, then writes the answer as the variant says or, for a `dropAfter`
 * fault, destroys the socket so the answer is lost although the work was done. An upload's
 * body crosses the uplink. A `silent` call is left unread and unanswered, and a `silentAfter`
 * one unanswered, until the connection closes (the call is logged at once, status null);
 * a `stall` holds the call's reading for a while. Every call is checked against the
 * politeness rules, and a 429 or 503 with Retry-After opens a window.
 */
export async function serveApiCall(
  service: ServiceContext,
  faults: FaultController,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): Promise<void> {
  const { state, politeness } = service;
  const method = request.method ?? 'GET';
  const match = matchApiRoute(method, path);
  const operation = match.kind === 'found' ? match.route.operation : 'unknown';
  const idempotencyKey =
    operation === 'createSigningRequest' ? headerValue(request, 'idempotency-key') : undefined;
  const tracker = new CallTracker(state, { method, path, operation, idempotencyKey }, response);
  if (match.kind !== 'found' && !path.startsWith('/__simulator/')) {
    state.recordViolation('unknown-endpoint', describeUnknownEndpoint(method, path, match));
  }
  const token = operation === 'token' ? undefined : bearerToken(request);
  const caller: Caller = {
    tokenClientId: token === undefined ? undefined : service.tokens.clientOf(token),
    formClientId: undefined,
    address: request.socket.remoteAddress ?? 'an unknown address',
  };
  const connection = service.connections.callOn(request.socket).id;
  const checkPoliteness = () =>
    politeness.checkCall({
      method,
      path,
      operation,
      client: callerLabel(caller),
      arrivedAt: tracker.receivedAt,
      sequence: tracker.sequence,
      connection,
      ...(match.kind === 'found' && match.params.id !== undefined ? { requestId: match.params.id } : {}),
    });
  const decision = isFaultEligible(path) ? faults.decide(path) : NO_FAULT;
  tracker.fault = decision.kind;
  const { socket } = request;
  const crossing =
    operation === 'upload'
      ? service.uplink.crossing(socket, connection, {
          hold: holdOf(decision),
          onSilenced: () => {
            service.connections.silence(socket);
            tracker.settle(null);
          },
        })
      : undefined;
  if (crossing) tracker.receivedBytes = () => crossing.receivedBytes;

  if (decision.kind === 'dropBefore') {
    socket.destroy();
    checkPoliteness();
    tracker.settle(null);
    return;
  }
  if (decision.kind === 'silent') {
    checkPoliteness();
    // An upload takes its first bytes across the uplink; the crossing then stops reading it.
    if (crossing && (decision.afterBytes ?? 0) > 0)
      await consumeBody(request, Infinity, () => undefined, crossing);
    service.connections.silence(socket);
    tracker.settle(null);
    await untilClosed(socket);
    return;
  }
  // An upload's stall is in its body (the crossing's hold); any other call is held before it is read.
  if (
    decision.kind === 'stall' &&
    !crossing &&
    !(await pauseFor(service.uplink.time, decision.stallMs ?? 0, [], socket))
  ) {
    checkPoliteness();
    tracker.settle(null);
    return;
  }
  let answer: ApiResponse | null;
  if (!isProcessed(decision)) {
    answer = faultAnswer(decision);
  } else {
    try {
      answer = await answerCall(service, request, path, match, tracker, caller, crossing);
    } catch (error) {
      // A bug in the simulator: answer 500 so the test sees it instead of hanging.
      console.error('simulator: unexpected error while serving', method, path, error);
      answer = errorResponse(500, 'simulator_error', 'the simulator failed; see its console');
    }
  }
  // A token form that arrived whole is still read, unconsumed, for its client_id (politeness).
  const unread = !request.complete || (operation === 'token' && !request.readableEnded);
  if (answer !== null && !answer.closeConnection && unread) {
    const form = formClientCollector(caller);
    answer = await afterDrainingBody(
      request,
      answer,
      operation === 'token' ? form.onChunk : () => undefined,
      crossing,
    );
    form.finish();
  }
  // A stall the upload's body never reached (shorter than afterBytes, or answered unread) strikes now.
  if (answer !== null && crossing && (await crossing.finish()) === 'stop') answer = null;
  checkPoliteness();
  if (answer === null) {
    tracker.settle(null);
    return;
  }
  if (decision.kind === 'silentAfter') {
    service.connections.silence(socket);
    tracker.settle(null);
    await untilClosed(socket);
    return;
  }
  if (decision.latencyMs > 0) await holdAnswer(state.clock, decision.latencyMs, request.socket);
  if (decision.kind === 'dropAfter') {
    request.socket.destroy();
    tracker.settle(null);
    return;
  }
  const writtenAt = state.clock.now();
  const written = writeApiAnswer(response, answer, { variant: state.settings.variant, now: writtenAt, path });
  tracker.settle(response.headersSent ? answer.status : null);
  if (written.retryAfter && response.headersSent && (answer.status === 429 || answer.status === 503)) {
    politeness.noteRetryAfter(
      { method, path, operation, client: callerLabel(caller), connection },
      {
        status: answer.status,
        retryAfter: written.retryAfter.value,
        writtenAt,
        sequence: state.nextSequence(),
        until: written.retryAfter.until,
      },
    );
  }
}
