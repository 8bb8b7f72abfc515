/**
 * The check dialog's id field takes the request's id, or its address pasted from the service:
 * any address whose path names the request as the service's interface does,
 * `…/signing-requests/{id}` (spec §4.4 to §4.7), gives that id.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readRequestIdInput } from '../../../renderer/src/state/request-id-input';

/** A request id as services show them: letters, digits, `_`, `-`, `.` and `:`, from a letter or digit. */
const requestId = fc
  .tuple(
    fc.constantFrom(...'abcXYZ019'.split('')),
    fc.array(fc.constantFrom(...'abcdefXYZ0189_-.:'.split('')), { maxLength: 30 }),
  )
  .map(([first, rest]) => first + rest.join(''))
  // `.` and `..` alone are path steps, which no address keeps as a segment.
  .filter((id) => !/^\.+$/.test(id));

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

  it('says an empty field is empty', () => {
    expect(readRequestIdInput('  ')).toEqual({ kind: 'empty' });
  });
});
