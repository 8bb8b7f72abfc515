/**
 * Searching a batch finds a person however their name is typed: without accents, without the
 * letters a keyboard lacks (ß, ø, æ, ł, ı…), with German and Nordic letters written out (ü as
 * ue, å as aa), in any case. Names are generated from letters with the spellings a person would
 * type for each; the search must find every part of every spelling.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filterDocuments } from '../../../renderer/src/state/document-status';
import type { DocumentView } from '../../../shared/ipc/views';

/**
 * A letter as a name may hold it (each of its ways of being written: capital, small, with its
 * accent decomposed), and how a person types it on a keyboard without it: plainly, or in the
 * German and Nordic way (Müller as Mueller, Søren as Soeren, Ålborg as Aalborg).
 */
interface Letter {
  readonly written: readonly string[];
  readonly plain: string;
  readonly spelledOut: string;
}

const letter = (written: readonly string[], plain: string, spelledOut = plain): Letter => ({
  written,
  plain,
  spelledOut,
});

const LETTERS: readonly Letter[] = [
  ...'abcdefghjklmnopqrtvwxyz'.split('').map((ascii) => letter([ascii, ascii.toUpperCase()], ascii)),
  letter(['é', 'É', 'e\u0301'], 'e'),
  letter(['è', 'ê', 'ë'], 'e'),
  letter(['ç', 'Ç'], 'c'),
  letter(['ñ', 'Ñ'], 'n'),
  letter(['č', 'Č', 'ć'], 'c'),
  letter(['ş', 'Ş', 'š'], 's'),
  letter(['ž', 'Ž'], 'z'),
  letter(['ü', 'Ü', 'u\u0308'], 'u', 'ue'),
  letter(['ö', 'Ö', 'o\u0308'], 'o', 'oe'),
  letter(['ä', 'Ä', 'a\u0308'], 'a', 'ae'),
  letter(['ø', 'Ø'], 'o', 'oe'),
  letter(['å', 'Å', 'a\u030a'], 'a', 'aa'),
  letter(['æ', 'Æ'], 'ae'),
  letter(['œ', 'Œ'], 'oe'),
  letter(['ß', 'ẞ'], 'ss'),
  letter(['ł', 'Ł'], 'l'),
  letter(['đ', 'Đ'], 'd'),
  letter(['ð', 'Ð'], 'd'),
  letter(['þ', 'Þ'], 'th'),
  letter(['ı'], 'i'),
  letter(['İ', 'i', 'I', 'í'], 'i'),
  letter(['s', 'S'], 's'),
  letter(['u', 'U', 'ú'], 'u'),
];

/** A letter of a name, as written in it (one of its ways). */
const nameLetter = fc
  .constantFrom(...LETTERS)
  .chain((chosen) => fc.constantFrom(...chosen.written).map((written) => ({ chosen, written })));

/** A name of one to three words. */
const nameWords = fc.array(fc.array(nameLetter, { minLength: 1, maxLength: 10 }), {
  minLength: 1,
  maxLength: 3,
});

type NameWords = typeof nameWords extends fc.Arbitrary<infer T> ? T : never;

function written(words: NameWords): string {
  return words.map((word) => word.map((part) => part.written).join('')).join(' ');
}

function typed(word: NameWords[number], style: 'plain' | 'spelledOut'): string {
  return word.map((part) => part.chosen[style]).join('');
}

function documentWith(name: string): DocumentView {
  return {
    id: 'doc',
    externalReference: 'REF-1',
    storedFilename: 'contract.pdf',
    class: 'not_sent',
    people: [{ name, email: 'person@example.com' }],
  } as unknown as DocumentView;
}

const found = (name: string, search: string) =>
  filterDocuments([documentWith(name)], 'all', search).length === 1;

/** `text` with each letter in upper or lower case, as `uppers` says, as a person may type it. */
function withCase(text: string, uppers: readonly boolean[]): string {
  return [...text].map((char, index) => (uppers[index % uppers.length] ? char.toUpperCase() : char)).join('');
}

describe('searching people by name, as they are typed on any keyboard', () => {
  it('finds a name by any part of a word, typed plainly or written out, in any case', () => {
    fc.assert(
      fc.property(
        nameWords,
        fc.nat(),
        fc.constantFrom<'plain' | 'spelledOut'>('plain', 'spelledOut'),
        fc.nat(),
        fc.nat(),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
        (words, wordAt, style, from, length, uppers) => {
          const word = typed(words[wordAt % words.length] ?? [], style);
          const start = from % word.length;
          const part = word.slice(start, start + 1 + (length % (word.length - start)));
          expect(found(written(words), withCase(part, uppers))).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('finds a name typed without those letters when searched with them', () => {
    fc.assert(
      fc.property(
        nameWords,
        fc.constantFrom<'plain' | 'spelledOut'>('plain', 'spelledOut'),
        (words, style) => {
          const typedName = words.map((word) => typed(word, style)).join(' ');
          expect(found(typedName, written(words))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each<[string, string]>([
    ['Søren Gößling', 'soren'],
    ['Søren Gößling', 'gossling'],
    ['Søren Gößling', 'SOEREN GOESSLING'],
    ['Ærø Kommune', 'aero'],
    ['Işık İnce', 'isik ince'],
    ['Jürgen Müller', 'mueller'],
    ['Ålborg Łódź', 'aalborg lodz'],
    ['ﬁlip', 'filip'],
  ])('finds "%s" by "%s"', (name, search) => {
    expect(found(name, search)).toBe(true);
  });

  it.each<[string, string]>([
    // Each word of a search its own way: one written out, the other plainly.
    ['Jürgen Müller', 'juergen muller'],
    ['Jürgen Müller', 'jurgen mueller'],
    ['Søren Ålborg-Gößling', 'soeren alborg-goessling'],
    // Word's and macOS's typographic apostrophes and dashes, typed plainly on a keyboard, and back.
    ['Anne L’Hôpital', "l'hopital"],
    ["Seán O'Brien", 'o’brien'],
    ['Jeanne d‘Arc', "d'arc"],
    ['Jean‑Pierre Dupré', 'jean-pierre'],
    ['Marie–Claire Martin', 'marie-claire'],
    ['Anne-Sophie Roux', 'anne–sophie'],
  ])('finds "%s" by "%s"', (name, search) => {
    expect(found(name, search)).toBe(true);
  });

  it('still finds nothing for a search nobody matches', () => {
    expect(found('Søren Gößling', 'sorensen')).toBe(false);
    expect(found('Jürgen Müller', 'mullerr')).toBe(false);
  });
});
