/**
 * What a person puts in the check dialog's id field: the request's id as the service shows it,
 * or an address copied from the service (a browser's address bar, a log, a support e-mail) whose
 * path names the request the way the service's interface does, `…/signing-requests/{id}`
 * (spec §4.4 to §4.7), possibly followed by one of its actions, a query or a fragment. An address
 * is read as a sentence or a mail holds it: between brackets, quotes or guillemets, followed by
 * the sentence's punctuation, among other words, or behind a mail's link protection (Outlook's
 * Safe Links, a redirect that carries it in its query). Never a wrong id taken silently: the id
 * read is shown, and a text naming two requests is refused.
 */

export type RequestIdInput =
  | { readonly kind: 'empty' }
  /** An id as typed: main checks its shape and reads it at the service. */
  | { readonly kind: 'id'; readonly requestId: string }
  /** The id read from an address's path. */
  | { readonly kind: 'fromAddress'; readonly requestId: string }
  /** An address whose path names no signing request. */
  | { readonly kind: 'addressWithoutId' }
  /** Addresses of different requests: which one is meant is the person's to say. */
  | { readonly kind: 'severalIds'; readonly requestIds: readonly string[] };

/** The path segment before a request's id, in every path of the service's requests. */
const REQUESTS_SEGMENT = 'signing-requests';

const WITH_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** What a sentence or a mail puts before an address: brackets, quotes, guillemets. */
const OPENING = /^[(<[{"'«‹“‘„]+/u;

/**
 * What a sentence or a mail puts after an address: its punctuation, closing brackets, quotes and
 * guillemets. No request id ends with one of them as the end of a sentence does.
 */
const CLOSING = /[.,;:!?…)>\]}"'»›”’“]+$/u;

/** Redirects followed, one inside another, to find the address they carry. */
const MAX_REDIRECTS = 3;

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
    const id = decodeURIComponent(segment);
    return id.trim() === '' ? undefined : id;
  } catch {
    return undefined;
  }
}

/**
 * The request id an address names: in its path, or else in the address a redirect carries in its
 * query (Safe Links' `url=`, a search engine's `q=`), an absolute address, followed a few deep.
 */
function idOfAddress(url: URL, depth = 0): string | undefined {
  const inPath = idInPath(url);
  if (inPath !== undefined || depth >= MAX_REDIRECTS) return inPath;
  for (const value of url.searchParams.values()) {
    if (!WITH_SCHEME.test(value)) continue;
    const carried = parseAddress(value);
    const id = carried === undefined ? undefined : idOfAddress(carried, depth + 1);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** `word` without what a sentence or a mail puts around an address. */
function unwrapped(word: string): string {
  return word.replace(OPENING, '').replace(CLOSING, '');
}

/** What the field holds: nothing, an id, an address with its id, or an address naming no request. */
export function readRequestIdInput(input: string): RequestIdInput {
  const text = input.trim();
  if (text === '') return { kind: 'empty' };
  if (!looksLikeAddress(text)) return { kind: 'id', requestId: text };
  // Each word that is an address, as a sentence holds it; one address alone is read whole.
  const words = text.split(/\s+/).map(unwrapped).filter(looksLikeAddress);
  const ids = new Set<string>();
  for (const word of words) {
    const url = parseAddress(word);
    const id = url === undefined ? undefined : idOfAddress(url);
    if (id !== undefined) ids.add(id);
  }
  const [only, ...others] = ids;
  if (only === undefined) return { kind: 'addressWithoutId' };
  return others.length === 0
    ? { kind: 'fromAddress', requestId: only }
    : { kind: 'severalIds', requestIds: [only, ...others] };
}
