/**
 * What a person puts in the check dialog's id field: the request's id as the service shows it,
 * or an address copied from the service (a browser's address bar, a log, a support e-mail) whose
 * path names the request the way the service's interface does, `…/signing-requests/{id}`
 * (spec §4.4 to §4.7), possibly followed by one of its actions, a query or a fragment.
 */

export type RequestIdInput =
  | { readonly kind: 'empty' }
  /** An id as typed: main checks its shape and reads it at the service. */
  | { readonly kind: 'id'; readonly requestId: string }
  /** The id read from an address's path. */
  | { readonly kind: 'fromAddress'; readonly requestId: string }
  /** An address whose path names no signing request. */
  | { readonly kind: 'addressWithoutId' };

/** The path segment before a request's id, in every path of the service's requests. */
const REQUESTS_SEGMENT = 'signing-requests';

const WITH_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** An address rather than an id: a scheme with `//`, or a `/` (which no request id holds). */
function looksLikeAddress(text: string): boolean {
  return WITH_SCHEME.test(text) || text.includes('/');
}

/** The address `text` names, also without its scheme (`desk.example/api/v1/…`) or as a bare path. */
function parseAddress(text: string): URL | undefined {
  try {
    if (WITH_SCHEME.test(text)) return new URL(text);
    if (text.startsWith('/')) return new URL(text, 'https://service.invalid');
    return new URL(`https://${text}`);
  } catch {
    return undefined;
  }
}

/** The request id in `url`'s path: the segment after `signing-requests`, decoded. */
function idInPath(url: URL): string | undefined {
  const segments = url.pathname.split('/');
  const at = segments.indexOf(REQUESTS_SEGMENT);
  const segment = at === -1 ? undefined : segments[at + 1];
  if (segment === undefined || segment === '') return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** What the field holds: nothing, an id, an address with its id, or an address naming no request. */
export function readRequestIdInput(input: string): RequestIdInput {
  const text = input.trim();
  if (text === '') return { kind: 'empty' };
  if (!looksLikeAddress(text)) return { kind: 'id', requestId: text };
  const url = parseAddress(text);
  const requestId = url === undefined ? undefined : idInPath(url);
  return requestId === undefined || requestId.trim() === ''
    ? { kind: 'addressWithoutId' }
    : { kind: 'fromAddress', requestId };
}
