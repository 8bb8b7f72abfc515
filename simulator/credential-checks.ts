import type { IncomingMessage } from 'node:http';
import { headerValue } from './http-io';
import type { ServiceState } from './service-state';

/**
 * Credentials belong in the token form only (spec §4.1, §5): a careful operator flags client
 * credentials or tokens seen anywhere else. Checked on every call to the service and the
 * widget (never the control API); nothing is refused, and the values are never recorded.
 * (`client_secret` in a JSON body is checked where JSON bodies are read, routes/json-body.ts.)
 */

const CREDENTIAL_PARAMETERS = ['client_id', 'client_secret', 'access_token'];

/** A request target in absolute form, `scheme://authority/path?query` (RFC 9112 §3.2.2). */
const ABSOLUTE_FORM = /^[a-z][a-z\d+.-]*:\/\/(?<authority>[^/?#]*)(?<rest>.*)$/is;

/** The origin-form part of a request target, and whether its absolute form carried userinfo. */
export function splitRequestTarget(target: string): { originForm: string; userinfo: boolean } {
  const absolute = ABSOLUTE_FORM.exec(target);
  if (!absolute) return { originForm: target, userinfo: false };
  const rest = absolute.groups?.rest ?? '';
  return {
    originForm: rest.startsWith('/') ? rest : `/${rest}`,
    userinfo: (absolute.groups?.authority ?? '').includes('@'),
  };
}

/**
 * Records a `credentials` violation for credential parameters in the query string, an
 * `Authorization: Basic` header, or userinfo in the request target. `loggedPath` is the path
 * as the call log shows it (widget tokens hidden).
 */
export function checkCredentials(
  state: ServiceState,
  request: IncomingMessage,
  call: { loggedPath: string; query: string; userinfo: boolean },
): void {
  const method = request.method ?? 'GET';
  const names = new Set<string>();
  for (const name of new URLSearchParams(call.query).keys()) {
    if (CREDENTIAL_PARAMETERS.includes(name.toLowerCase())) names.add(name.toLowerCase());
  }
  if (names.size > 0) {
    state.recordViolation(
      'credentials',
      `${method} ${call.loggedPath} with ${[...names].sort().join(', ')} in the query string`,
    );
  }
  if (/^basic(\s|$)/i.test(headerValue(request, 'authorization')?.trim() ?? '')) {
    state.recordViolation(
      'credentials',
      `${method} ${call.loggedPath} with an Authorization: Basic header (credentials belong in the token form only)`,
    );
  }
  if (call.userinfo) {
    state.recordViolation(
      'credentials',
      `${method} ${call.loggedPath} with credentials in the request target's userinfo`,
    );
  }
}
