/**
 * The one address rule (main/client/base-url.ts): https, or http only to this computer; no
 * user name or password, query or fragment. Every entry (a saved connection, `--base-url`, a
 * batch's recorded address, the service client) asks this function; its edge cases are here.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkBaseUrl, MAX_BASE_URL_LENGTH } from '../../../main/client/base-url';
import { speaking } from '../../../main/base/words';
import { createTranslator } from '../../../shared/i18n/translator';

const HTTP_ONLY_HERE =
  'The base URL must use https:// so the client secret is encrypted on the way; http:// is accepted only for this computer (localhost, 127.0.0.1 to 127.255.255.255, or [::1]).';
const CREDENTIALS =
  'The base URL cannot contain a user name or password; the client id and secret are entered separately.';
const QUERY = 'The base URL cannot contain a query (?…) or fragment (#…).';
const SCHEME = 'The base URL must start with https://, e.g. https://sign.example.com.';
const SPACES = 'The base URL cannot contain spaces, tabs or line breaks.';
const NOT_ADDRESS = 'The base URL must be a full address, e.g. https://sign.example.com.';

describe('the address rule accepts https anywhere, http only to this computer, in one spelling', () => {
  it.each([
    ['https://sign.example.com', 'https://sign.example.com'],
    ['https://sign.example.com/', 'https://sign.example.com'],
    ['https://sign.example.com/api/v1//', 'https://sign.example.com/api/v1'],
    ['  https://sign.example.com  ', 'https://sign.example.com'],
    ['HTTPS://Sign.Example.COM:443/', 'https://sign.example.com'],
    // The whole IPv4 loopback range is this computer (RFC 1122): its packets never leave it.
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010'],
    ['http://127.0.0.2:4010', 'http://127.0.0.2:4010'],
    ['http://127.255.255.254', 'http://127.255.255.254'],
    // The URL parser's spelling of an IPv4 address, whatever was typed.
    ['http://0x7f000001:4010', 'http://127.0.0.1:4010'],
    ['http://2130706433', 'http://127.0.0.1'],
    ['http://127.1', 'http://127.0.0.1'],
    ['http://[::1]:4010', 'http://[::1]:4010'],
    ['http://[0:0:0:0:0:0:0:1]', 'http://[::1]'],
    ['http://localhost:4010/', 'http://localhost:4010'],
    ['http://LOCALHOST', 'http://localhost'],
    // An international domain name is kept in its ASCII form.
    ['https://bücher.example/sign', 'https://xn--bcher-kva.example/sign'],
  ])('%j is %j', (text, spelled) => {
    expect(checkBaseUrl(text)).toEqual({ ok: true, value: spelled });
  });
});

describe('the address rule refuses, saying why', () => {
  it.each([
    ['', 'The base URL is required, e.g. https://sign.example.com.'],
    ['   ', 'The base URL is required, e.g. https://sign.example.com.'],
    ['sign.example.com', NOT_ADDRESS],
    ['https://', NOT_ADDRESS],
    ['http://[::1', NOT_ADDRESS],
    ['ftp://sign.example.com', SCHEME],
    ['file:///etc/passwd', SCHEME],
    ['javascript:alert(1)', SCHEME],
    ['data:text/plain,x', SCHEME],
    ['http://sign.example.com', HTTP_ONLY_HERE],
    ['http://10.0.0.5:8080', HTTP_ONLY_HERE],
    ['http://0.0.0.0:4010', HTTP_ONLY_HERE],
    ['http://128.0.0.1', HTTP_ONLY_HERE],
    ['http://127.0.0.1.example.com', HTTP_ONLY_HERE],
    // Absolute and sub-domain names of localhost may be asked of DNS: not surely this computer.
    ['http://localhost.', HTTP_ONLY_HERE],
    ['http://localhost.example.com', HTTP_ONLY_HERE],
    ['http://sign.localhost', HTTP_ONLY_HERE],
    ['http://[::ffff:127.0.0.1]', HTTP_ONLY_HERE],
    ['http://user@127.0.0.1:4010', CREDENTIALS],
    ['http://:secret@localhost', CREDENTIALS],
    ['https://a:b@sign.example.com', CREDENTIALS],
    ['https://sign.example.com/?tenant=1', QUERY],
    ['https://sign.example.com?q', QUERY],
    ['https://sign.example.com/#f', QUERY],
    ['https://sign.example.com/?', QUERY],
    ['https://sign.example.com#', QUERY],
    ['https://sign .example.com', SPACES],
    ['https://sign.example.com/a b', SPACES],
    // The URL parser would drop a tab or a line break silently and read another address.
    ['http://ev\til.example', SPACES],
    ['https://sign.example.com\n/api', SPACES],
  ])('%j', (text, message) => {
    expect(checkBaseUrl(text)).toEqual({ ok: false, error: message });
  });

  it(`refuses an address longer than ${MAX_BASE_URL_LENGTH} characters, saying its length and the most`, () => {
    const longest = `https://sign.example.com/${'a'.repeat(MAX_BASE_URL_LENGTH - 'https://sign.example.com/'.length)}`;
    expect(longest).toHaveLength(2048);
    expect(checkBaseUrl(longest).ok).toBe(true);
    expect(checkBaseUrl(`${longest}a`)).toEqual({
      ok: false,
      error:
        'The base URL is too long: 2,049 characters, at most 2,048 are accepted. A service address is much shorter, e.g. https://sign.example.com.',
    });
  });

  describe('refuses a hostile address by its length alone, before any parsing', () => {
    afterEach(() => {
      vi.unstubAllGlobals();
      vi.restoreAllMocks();
    });

    /** Counts the parsing `checkBaseUrl` does: its patterns and the URL parser. */
    function watchParsing(): { patterns: () => number; parses: () => number } {
      const patterns = vi.spyOn(RegExp.prototype, 'test');
      let parses = 0;
      const RealUrl = URL;
      vi.stubGlobal(
        'URL',
        class CountedUrl extends RealUrl {
          constructor(...args: ConstructorParameters<typeof URL>) {
            super(...args);
            parses += 1;
          }
        },
      );
      return { patterns: () => patterns.mock.calls.length, parses: () => parses };
    }

    it('a valid address goes through the patterns and the parser (what is watched is what runs)', () => {
      const parsing = watchParsing();
      expect(checkBaseUrl('https://sign.example.com').ok).toBe(true);
      expect(parsing.patterns()).toBeGreaterThan(0);
      expect(parsing.parses()).toBeGreaterThan(0);
    });

    it('one of 10 MB is refused with no pattern run and no parse: its cost does not grow with what it holds', () => {
      const huge = `https://${'a'.repeat(10_000_000)}.example`;
      const parsing = watchParsing();
      expect(checkBaseUrl(huge)).toMatchObject({ ok: false, error: expect.stringContaining('10,000,016') });
      expect(checkBaseUrl(`https://sign.example.com/${'\t'.repeat(MAX_BASE_URL_LENGTH)}x`)).toMatchObject({
        ok: false,
        error: expect.stringContaining('at most 2,048'),
      });
      expect([parsing.patterns(), parsing.parses()]).toEqual([0, 0]);
    });
  });

  it('says why in the language of the call (the app), English outside one (the command line)', () => {
    const inFrench = speaking(createTranslator('fr').t, () => checkBaseUrl('http://sign.example.com'));
    expect(inFrench).toEqual({
      ok: false,
      error:
        'L’URL de base doit utiliser https:// pour que le secret client soit chiffré en chemin\u00a0; http:// n’est accepté que pour cet ordinateur (localhost, 127.0.0.1 à 127.255.255.255, ou [::1]).',
    });
    const inGerman = speaking(createTranslator('de').t, () => checkBaseUrl('https://a:b@sign.example.com'));
    expect(inGerman).toEqual({
      ok: false,
      error:
        'Die Basis-URL darf keinen Benutzernamen und kein Passwort enthalten; Client-ID und Secret werden getrennt eingegeben.',
    });
    expect(checkBaseUrl('http://sign.example.com')).toEqual({ ok: false, error: HTTP_ONLY_HERE });
  });
});
