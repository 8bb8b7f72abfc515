import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { collectBody, errorResponse, parseJson, writeJson, type ApiResponse } from './http-io';
import { describeIssues } from './request-schemas';
import {
  ALL_SCOPES,
  FAULT_KINDS,
  TOKEN_REFUSAL_CODES,
  type FaultConfig,
  type QueuedFault,
  type SimulatorClient,
  type StatusChange,
} from './types';

/**
 * The HTTP control API under `/__simulator/`: lets tests and tools in another process (the
 * browser journeys, `npm run simulator`) steer the simulator. Loopback only, no auth: it is
 * a test tool, never part of the simulated service.
 */

/** What the control API acts on; the simulator implements it. */
export interface ControlTarget {
  snapshot(includeCalls: boolean): Record<string, unknown>;
  setFaults(changes: Partial<FaultConfig>, reset: boolean): FaultConfig;
  enqueueFaults(faults: QueuedFault[]): void;
  advanceClock(ms: number): number;
  addClient(client: SimulatorClient): void;
  /** False when no such signing request exists. Throws when it cannot be completed yet. */
  complete(requestId: string): boolean;
  /** Puts a request in any status; false when no such signing request exists. */
  setStatus(requestId: string, change: StatusChange): boolean;
  revokeTokens(): void;
  /** Goes offline now and back online after `seconds` of real time. */
  goOfflineFor(seconds: number): void;
  /**
   * Sets the shared line's rate, each connection's, and stalls the shared line (0 ends a stall),
   * whichever is given; returns the uplink as the state shows it. Throws RangeError on a rate it
   * cannot play, changing nothing.
   */
  setUplink(changes: UplinkChanges): Record<string, unknown>;
}

/** A change of the uplink through `POST /__simulator/uplink`. */
export interface UplinkChanges {
  /** The shared line in Mbit/s; 0: unlimited. */
  mbit?: number | undefined;
  /** Each connection's own line in Mbit/s; 0: unlimited. */
  perConnectionMbit?: number | undefined;
  /** The shared line carries nothing for this long from now; 0 ends a stall. */
  stallMs?: number | undefined;
}

const MAX_CONTROL_BODY_BYTES = 64 * 1024;
const rate = z.number().min(0).max(1);
const nonNegative = z.number().min(0);

const faultConfigSchema = z.strictObject({
  rate503: rate.optional(),
  rate429: rate.optional(),
  retryAfterSeconds: nonNegative.optional(),
  dropBeforeRate: rate.optional(),
  dropAfterRate: rate.optional(),
  gateway404Rate: rate.optional(),
  latencyMs: nonNegative.optional(),
  latencySpikeRate: rate.optional(),
  latencySpikeMs: nonNegative.optional(),
  tokenRefusalRate: rate.optional(),
  tokenRefusalCode: z.enum(TOKEN_REFUSAL_CODES).optional(),
  silentRate: rate.optional(),
  pathPattern: z.string().optional(),
});
const queuedFaultSchema = z.strictObject({
  kind: z.enum(FAULT_KINDS),
  pathPattern: z.string().optional(),
  retryAfterSeconds: nonNegative.optional(),
  status: z.int().min(400).max(599).optional(),
  code: z.string().min(1).optional(),
  afterBytes: z.int().min(0).optional(),
  stallMs: nonNegative.optional(),
});
const enqueueSchema = z.strictObject({ faults: z.array(queuedFaultSchema).min(1) });
const advanceSchema = z.strictObject({ ms: nonNegative });
const clientSchema = z.strictObject({
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  scopes: z.array(z.enum(ALL_SCOPES)),
});
const offlineSchema = z.strictObject({ seconds: z.number().positive().max(3600) });
const uplinkSchema = z.strictObject({
  mbit: nonNegative.optional(),
  perConnectionMbit: nonNegative.optional(),
  stallMs: nonNegative.optional(),
});
const statusChangeSchema = z.strictObject({
  status: z.string().trim().min(1).max(100),
  documentStatus: z.string().trim().min(1).max(100).optional(),
  finalized: z.boolean().optional(),
});

function invalid(message: string): ApiResponse {
  return errorResponse(400, 'invalid_control_request', message);
}

/** Parses a control body with `schema`; an empty body counts as `{}`. */
async function readBody<T>(
  request: IncomingMessage,
  schema: z.ZodType<T>,
): Promise<{ ok: true; value: T } | { ok: false; answer: ApiResponse | null }> {
  const body = await collectBody(request, MAX_CONTROL_BODY_BYTES);
  if (body.kind === 'aborted') return { ok: false, answer: null };
  if (body.kind === 'tooLarge') return { ok: false, answer: invalid('the body is too large') };
  const json = body.bytes.length === 0 ? { ok: true as const, value: {} } : parseJson(body.bytes);
  if (!json.ok) return { ok: false, answer: invalid('body: must be JSON') };
  const parsed = schema.safeParse(json.value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, answer: invalid(describeIssues(parsed.error)) };
}

async function route(
  target: ControlTarget,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<ApiResponse | null> {
  const method = request.method ?? 'GET';
  const path = url.pathname.slice('/__simulator'.length);
  const completeMatch = /^\/requests\/(?<id>[^/]+)\/complete$/.exec(path);
  const statusMatch = /^\/requests\/(?<id>[^/]+)\/status$/.exec(path);
  const allowed = path === '/state' ? 'GET' : 'POST';
  const known =
    [
      '/state',
      '/faults',
      '/faults/enqueue',
      '/clock/advance',
      '/clients',
      '/offline',
      '/tokens/revoke',
      '/uplink',
    ].includes(path) ||
    completeMatch !== null ||
    statusMatch !== null;
  if (!known) return errorResponse(404, 'not_found', `no control endpoint ${url.pathname}`);
  if (method !== allowed) {
    return errorResponse(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`, {
      allow: allowed,
    });
  }

  if (path === '/state') return { status: 200, body: target.snapshot(url.searchParams.get('calls') === '1') };
  if (path === '/tokens/revoke') {
    target.revokeTokens();
    return { status: 200, body: { revoked: true } };
  }
  if (completeMatch) {
    const id = decodeURIComponent(completeMatch.groups?.id ?? '');
    try {
      if (!target.complete(id))
        return errorResponse(404, 'signing_request_not_found', `no signing request ${id}`);
    } catch (error) {
      return errorResponse(
        409,
        'signing_request_not_ready',
        error instanceof Error ? error.message : String(error),
      );
    }
    return { status: 200, body: { id, completed: true } };
  }
  if (statusMatch) {
    const id = decodeURIComponent(statusMatch.groups?.id ?? '');
    const body = await readBody(request, statusChangeSchema);
    if (!body.ok) return body.answer;
    const change: StatusChange = {
      status: body.value.status,
      ...(body.value.documentStatus === undefined ? {} : { documentStatus: body.value.documentStatus }),
      ...(body.value.finalized === undefined ? {} : { finalized: body.value.finalized }),
    };
    if (!target.setStatus(id, change))
      return errorResponse(404, 'signing_request_not_found', `no signing request ${id}`);
    return { status: 200, body: { id, ...change } };
  }
  if (path === '/faults') {
    const body = await readBody(request, faultConfigSchema);
    if (!body.ok) return body.answer;
    try {
      return { status: 200, body: target.setFaults(body.value, url.searchParams.get('reset') === '1') };
    } catch (error) {
      return invalid(error instanceof Error ? error.message : String(error));
    }
  }
  if (path === '/faults/enqueue') {
    const body = await readBody(request, enqueueSchema);
    if (!body.ok) return body.answer;
    try {
      target.enqueueFaults(body.value.faults);
    } catch (error) {
      return invalid(error instanceof Error ? error.message : String(error));
    }
    return { status: 200, body: { queued: body.value.faults.length } };
  }
  if (path === '/clock/advance') {
    const body = await readBody(request, advanceSchema);
    if (!body.ok) return body.answer;
    const now = target.advanceClock(body.value.ms);
    return { status: 200, body: { now: new Date(now).toISOString() } };
  }
  if (path === '/uplink') {
    const body = await readBody(request, uplinkSchema);
    if (!body.ok) return body.answer;
    try {
      return { status: 200, body: target.setUplink(body.value) };
    } catch (error) {
      return invalid(error instanceof Error ? error.message : String(error));
    }
  }
  if (path === '/clients') {
    const body = await readBody(request, clientSchema);
    if (!body.ok) return body.answer;
    target.addClient(body.value);
    return { status: 201, body: { clientId: body.value.clientId, scopes: body.value.scopes } };
  }
  const body = await readBody(request, offlineSchema);
  if (!body.ok) return body.answer;
  const { seconds } = body.value;
  // Go offline only once this answer has left, so the caller learns that it worked.
  response.once('finish', () => target.goOfflineFor(seconds));
  return { status: 202, body: { offlineForSeconds: seconds } };
}

/** Serves one `/__simulator/…` call. */
/** Names this computer is reached by; the control API answers no other (DNS rebinding). */
const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/i;

/**
 * Why a control call is refused before it is read: it must come from this computer by name, and
 * never from a web page of another origin (a page could otherwise complete requests or read
 * the participants' names); undefined when it may proceed.
 */
function foreignCaller(request: IncomingMessage): ApiResponse | undefined {
  const host = request.headers.host ?? '';
  if (!LOOPBACK_HOST.test(host))
    return errorResponse(
      403,
      'foreign_host',
      'the control API answers only at 127.0.0.1, localhost or [::1]',
    );
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`)
    return errorResponse(403, 'foreign_origin', 'the control API does not answer web pages of other origins');
  return undefined;
}

export async function serveControl(
  target: ControlTarget,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const refused = foreignCaller(request);
  if (refused) {
    request.resume();
    writeJson(response, refused);
    return;
  }
  const answer = await route(target, request, response, url);
  if (answer) writeJson(response, answer);
}
