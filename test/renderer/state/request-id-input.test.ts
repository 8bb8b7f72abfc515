/**
 * The check dialog's id field takes the request's id, or its address pasted from the service:
 * any address whose path names the request as the service's interface does,
 * `…/signing-requests/{id}` (spec §4.4 to §4.7), gives that id.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readRequestIdInput } from '../../../renderer/src/state/request-id-input';

/**
 * A request id as services show them: letters, digits, `_`, `-`, `.` and `:`, from a letter or
 * digit to a letter, digit, `_` or `-` (a `.` or `:` that ends an address in a sentence is the
 * sentence's: see the punctuation test).
 */
const requestId = fc
  .tuple(
    fc.constantFrom(...'abcXYZ019'.split('')),
    fc.array(fc.constantFrom(...'abcdefXYZ0189_-.:'.split('')), { maxLength: 30 }),
    fc.constantFrom(...'aZ09_-'.split('')),
  )
  .map(([first, rest, last]) => first + rest.join('') + last);

/** Where the service is: its origin and the path its interface starts from. */
const serviceBase = fc.record({
  scheme: fc.constantFrom('https://', 'http://', 'HTTPS://', ''),
  host: fc.constantFrom('sign.example.com', '127.0.0.1:4010', 'localhost:8080', 'xn--bro-hoa.example'),
  prefix: fc.constantFrom('', '/signing', '/eu/v2/desk'),
});

/** What may follow the id in a copied address: one of the request's actions, a slash, a query, a fragment. */
const after = fc.constantFrom(
  '',
  '/',
  '/prepare',
  '/participants',
  '/widget-session',
  '?tab=history',
  '#evidence',
  '/participants?page=2#top',
);

describe('the id field of the check dialog', () => {
  it('takes the id from any address of the request, as the service writes its paths', () => {
    fc.assert(
      fc.property(
        requestId,
        serviceBase,
        fc.boolean(),
        after,
        fc.boolean(),
        fc.constantFrom('', ' ', '\n', '\t '),
        (id, base, apiPath, tail, encoded, space) => {
          const segment = encoded ? encodeURIComponent(id) : id;
          const path = `${base.prefix}${apiPath ? '/api/v1' : ''}/signing-requests/${segment}${tail}`;
          const address = `${space}${base.scheme}${base.host}${path}${space}`;
          expect(readRequestIdInput(address)).toEqual({ kind: 'fromAddress', requestId: id });
          // The path alone, as a log line shows it, names the request too.
          expect(readRequestIdInput(path)).toEqual({ kind: 'fromAddress', requestId: id });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('takes an id as typed, spaces around it aside', () => {
    fc.assert(
      fc.property(requestId, fc.constantFrom('', ' ', '  \n'), (id, space) => {
        expect(readRequestIdInput(`${space}${id}${space}`)).toEqual({ kind: 'id', requestId: id });
      }),
    );
  });

  it.each([
    ['the service’s own address', 'https://sign.example.com/'],
    ['the list of requests', 'https://sign.example.com/api/v1/signing-requests'],
    ['the list, with a slash', 'https://sign.example.com/api/v1/signing-requests/'],
    ['a signing page', 'https://widget.example.com/session/abc123?token=x'],
    ['the id in the query only', 'https://sign.example.com/search?q=/signing-requests/sr_1'],
    ['an upload', 'https://sign.example.com/api/v1/uploads/upl_1'],
  ])('refuses an address that names no request: %s', (_what, address) => {
    expect(readRequestIdInput(address)).toEqual({ kind: 'addressWithoutId' });
  });

  it('takes the id from an address as a sentence or a mail holds it: around it brackets, quotes or guillemets, after it the sentence’s punctuation, among other words', () => {
    const address = 'https://sign.example.com/api/v1/signing-requests/sr_3f9a';
    fc.assert(
      fc.property(
        fc.constantFrom('', '(', '<', '"', '«', '« ', '“', "'"),
        fc.constantFrom('', '.', ',', ':', ';', '!', '?', '…', ')', ').', '>', '"', '»', ' »', '”', "'."),
        fc.constantFrom('', 'Voir ', 'The request: ', 'Bitte prüfen Sie '),
        fc.constantFrom('', ' Thanks', '\n> Regards', ' — Anne'),
        (open, close, before, after) => {
          expect(readRequestIdInput(`${before}${open}${address}${close}${after}`)).toEqual({
            kind: 'fromAddress',
            requestId: 'sr_3f9a',
          });
        },
      ),
    );
  });

  it.each([
    [
      'Outlook’s Safe Links',
      `https://eur01.safelinks.protection.outlook.com/?url=${encodeURIComponent('https://sign.example.com/api/v1/signing-requests/sr_3f9a/participants')}&data=05%7C02%7Canne%40example.com&reserved=0`,
    ],
    [
      'a search engine’s redirect',
      'https://www.google.com/url?q=https://sign.example.com/api/v1/signing-requests/sr_3f9a&sa=D',
    ],
    [
      'a redirect inside a redirect',
      `https://click.example.net/r?to=${encodeURIComponent(`https://eur01.safelinks.protection.outlook.com/?url=${encodeURIComponent('https://sign.example.com/api/v1/signing-requests/sr_3f9a')}`)}`,
    ],
  ])('takes the id from the address a mail’s link protection carries: %s', (_what, address) => {
    expect(readRequestIdInput(address)).toEqual({ kind: 'fromAddress', requestId: 'sr_3f9a' });
  });

  it('refuses a text naming two requests: which one is meant is the person’s to say', () => {
    expect(
      readRequestIdInput(
        'https://sign.example.com/api/v1/signing-requests/sr_1 or https://sign.example.com/api/v1/signing-requests/sr_2?',
      ),
    ).toEqual({ kind: 'severalIds', requestIds: ['sr_1', 'sr_2'] });
    // The same request twice is one.
    expect(
      readRequestIdInput(
        'https://sign.example.com/api/v1/signing-requests/sr_1 (https://sign.example.com/api/v1/signing-requests/sr_1/prepare)',
      ),
    ).toEqual({ kind: 'fromAddress', requestId: 'sr_1' });
  });

  it('says an empty field is empty', () => {
    expect(readRequestIdInput('  ')).toEqual({ kind: 'empty' });
  });
});
