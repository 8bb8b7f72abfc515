import {
  collectBody,
  errorResponse,
  headerValue,
  isJsonObject,
  mediaType,
  parseJson,
  type ApiResponse,
} from '../http-io';
import type { ApiCall } from './api-route';

/** JSON bodies of the API are small; anything larger is refused before parsing. */
export const MAX_JSON_BYTES = 1024 * 1024;

/** Reads a JSON object body, or the error answer for a body that is not one. */
export async function readJsonObject(
  call: ApiCall,
  invalidCode: string,
): Promise<{ ok: true; value: Record<string, unknown> } | { ok: false; answer: ApiResponse | null }> {
  const body = await collectBody(call.request, MAX_JSON_BYTES);
  if (body.kind === 'aborted') return { ok: false, answer: null };
  if (body.kind === 'tooLarge') {
    return {
      ok: false,
      answer: {
        ...errorResponse(413, 'request_too_large', `JSON bodies are limited to ${MAX_JSON_BYTES} bytes`),
        closeConnection: !body.drained,
      },
    };
  }
  const parsed = parseJson(body.bytes);
  if (!parsed.ok || !isJsonObject(parsed.value)) {
    return { ok: false, answer: errorResponse(422, invalidCode, 'body: must be a JSON object') };
  }
  if (hasKey(parsed.value, 'client_secret')) {
    call.service.state.recordViolation(
      'credentials',
      `${call.method} ${call.path} with client_secret in the JSON body (credentials belong in the token form only)`,
    );
  }
  return { ok: true, value: parsed.value };
}

/** True when `name` is a key of the value or of any object nested in it (iterative: depth is the client's). */
function hasKey(value: unknown, name: string): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (Array.isArray(current)) {
      for (const item of current) pending.push(item);
    } else if (isJsonObject(current)) {
      if (Object.hasOwn(current, name)) return true;
      for (const item of Object.values(current)) pending.push(item);
    }
  }
  return false;
}

/** The 415 answer when a JSON endpoint receives another media type. */
export function jsonContentTypeProblem(call: ApiCall): ApiResponse | undefined {
  const type = mediaType(headerValue(call.request, 'content-type'));
  if (type === 'application/json') return undefined;
  return errorResponse(
    415,
    'invalid_content_type',
    `Content-Type must be application/json, got ${type ?? 'none'}`,
  );
}
