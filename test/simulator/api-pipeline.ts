import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { CallTracker } from './call-tracker';
import type { FaultController, FaultDecision } from './faults';
import { consumeBody, errorResponse, headerValue, writeJson, type ApiResponse } from './http-io';
import type { ServiceContext } from './routes/api-route';
import { matchApiRoute, type RouteMatch } from './routes/api-routes';

/** Faults and latency hit only the token endpoint and the v1 API. */
function isFaultEligible(path: string): boolean {
  return path === '/oauth/token' || path.startsWith('/api/v1/');
}

const NO_FAULT: FaultDecision = { kind: null, retryAfterSeconds: 0, latencyMs: 0 };

function acceptsJson(accept: string): boolean {
  const value = accept.toLowerCase();
  return value.includes('application/json') || value.includes('*/*') || value.includes('application/*');
}

function faultAnswer(decision: FaultDecision): ApiResponse {
  if (decision.reject) {
    return errorResponse(decision.reject.status, decision.reject.code, 'rejected by a queued fault');
  }
  const retryAfter = { 'retry-after': String(decision.retryAfterSeconds) };
  return decision.kind === '429'
    ? errorResponse(429, 'rate_limited', 'too many requests; retry after the Retry-After delay', retryAfter)
    : errorResponse(503, 'upstream_unavailable', 'the service is temporarily unavailable', retryAfter);
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
    service.state.recordViolation(`${method} ${path} without Accept: application/json`);
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
    identifyClient: (clientId) => {
      tracker.clientId = clientId;
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
async function afterDrainingBody(request: IncomingMessage, answer: ApiResponse): Promise<ApiResponse | null> {
  const drained = await consumeBody(request, MAX_DRAINED_BYTES, () => undefined);
  if (drained.kind === 'aborted') return null;
  return drained.kind === 'tooLarge' && !drained.drained ? { ...answer, closeConnection: true } : answer;
}

/**
 * Serves one call to anything but the widget and the control API (unknown paths answer 404
 * here): decides its fault, processes it (unless the
 * fault strikes first), waits the configured latency, then writes the answer or, for a
 * `dropAfter` fault, destroys the socket so the answer is lost although the work was done.
 */
export async function serveApiCall(
  service: ServiceContext,
  faults: FaultController,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): Promise<void> {
  const method = request.method ?? 'GET';
  const match = matchApiRoute(method, path);
  const operation = match.kind === 'found' ? match.route.operation : 'unknown';
  const tracker = new CallTracker(service.state, { method, path, operation }, response);
  const decision = isFaultEligible(path) ? faults.decide(path) : NO_FAULT;
  tracker.fault = decision.kind;

  if (decision.kind === 'dropBefore') {
    request.socket.destroy();
    tracker.settle(null);
    return;
  }
  let answer: ApiResponse | null;
  if (decision.kind === '503' || decision.kind === '429' || decision.kind === 'reject') {
    answer = faultAnswer(decision);
  } else {
    try {
      answer = await answerCall(service, request, path, match, tracker);
    } catch (error) {
      // A bug in the simulator: answer 500 so the test sees it instead of hanging.
      console.error('simulator: unexpected error while serving', method, path, error);
      answer = errorResponse(500, 'simulator_error', 'the simulator failed; see its console');
    }
  }
  if (answer !== null && !answer.closeConnection && !request.complete) {
    answer = await afterDrainingBody(request, answer);
  }
  if (answer === null) {
    tracker.settle(null);
    return;
  }
  if (decision.latencyMs > 0) await sleep(decision.latencyMs);
  if (decision.kind === 'dropAfter') {
    request.socket.destroy();
    tracker.settle(null);
    return;
  }
  writeJson(response, answer);
  tracker.settle(response.headersSent ? answer.status : null);
}
