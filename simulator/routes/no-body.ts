import { collectBody, errorResponse, type ApiResponse } from '../http-io';
import type { ApiCall } from './api-route';

/** A body on a no-body call is read (and dropped) up to this size; beyond it the connection closes. */
const MAX_IGNORED_BODY_BYTES = 64 * 1024;

/** What a no-body call sent: nothing, some bytes, or nothing to answer (the client left). */
export type BodyPresence =
  | { kind: 'none' }
  /** Some bytes arrived; `undrained` when the client kept sending beyond what is read. */
  | { kind: 'present'; undrained: boolean }
  /** The client went away before its request ended. */
  | { kind: 'aborted' };

/**
 * Reads what a call the spec says takes "No body" sent, and records a `body-not-allowed`
 * violation when it sent any byte (read, prepare, widget session).
 */
export async function noteAnyBody(call: ApiCall): Promise<BodyPresence> {
  const body = await collectBody(call.request, MAX_IGNORED_BODY_BYTES);
  if (body.kind === 'aborted') return { kind: 'aborted' };
  if (body.kind === 'complete' && body.bytes.length === 0) return { kind: 'none' };
  const client = call.grant?.clientId ?? 'an unauthenticated client';
  call.service.state.recordViolation(
    'body-not-allowed',
    `${call.method} ${call.path} by ${client} with a request body (the spec says "No body")`,
  );
  return { kind: 'present', undrained: body.kind === 'tooLarge' && !body.drained };
}

/**
 * The spec says "No body" for prepare and widget-session: any body byte is refused with the
 * operation's invalid-request code (and recorded). Undefined when there was no body; null when
 * the client went away.
 */
export async function refuseAnyBody(
  call: ApiCall,
  invalidCode: string,
): Promise<ApiResponse | null | undefined> {
  const body = await noteAnyBody(call);
  if (body.kind === 'aborted') return null;
  if (body.kind === 'none') return undefined;
  return {
    ...errorResponse(422, invalidCode, 'this operation takes no request body'),
    closeConnection: body.undrained,
  };
}
