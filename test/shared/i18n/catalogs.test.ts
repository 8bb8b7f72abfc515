/**
 * The catalogs a translator edits: every message of every area exists in English, French and
 * German, each parses as ICU MessageFormat, and each language uses the same arguments. A number
 * is a number in every language, but which number a word agrees with is each language's grammar
 * ("1 of 2 documents sent", "1 document envoyé sur 2"): a language may inflect on another of the
 * message's numbers, never on fewer of them than English does.
 */
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { CATALOG_AREAS } from '../../../shared/i18n/catalog';
import { LANGUAGES } from '../../../shared/i18n/languages';
import { createTranslator } from '../../../shared/i18n/translator';

/** The kind of an argument; a plural and a formatted number are both numbers. */
function kindOf(type: TYPE): string {
  return type === TYPE.plural || type === TYPE.number ? 'number' : TYPE[type];
}

/** The arguments of a message and their kinds ("count:number", "name:argument"). */
function argumentsOf(elements: readonly MessageFormatElement[], found = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    if (element.type === TYPE.tag) {
      found.add(`<${element.value}>`);
      argumentsOf(element.children, found);
      continue;
    }
    found.add(`${element.value}:${kindOf(element.type)}`);
    if (element.type === TYPE.plural || element.type === TYPE.select)
      for (const option of Object.values(element.options)) argumentsOf(option.value, found);
  }
  return found;
}

/** The arguments a message's words are inflected on (its plurals). */
function pluralsOf(elements: readonly MessageFormatElement[], found = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.tag) pluralsOf(element.children, found);
    if (element.type === TYPE.plural) found.add(element.value);
    if (element.type === TYPE.plural || element.type === TYPE.select)
      for (const option of Object.values(element.options)) pluralsOf(option.value, found);
  }
  return found;
}

describe('message catalogs', () => {
  for (const [area, languages] of Object.entries(CATALOG_AREAS)) {
    it(`${area}: every message exists in every language with the same arguments`, () => {
      const english = languages.en as Record<string, string>;
      for (const language of LANGUAGES) {
        const catalog = languages[language] as Record<string, string>;
        expect(
          Object.keys(catalog).sort(),
          `${language}/${area}.json has the same messages as English`,
        ).toEqual(Object.keys(english).sort());
        for (const [id, message] of Object.entries(catalog)) {
          expect(message.trim(), `${language} ${id} is not empty`).not.toBe('');
          const args = [...argumentsOf(parse(message))].sort();
          expect(args, `${language} ${id} takes the same arguments as English`).toEqual(
            [...argumentsOf(parse(english[id] ?? ''))].sort(),
          );
          expect(
            pluralsOf(parse(message)).size,
            `${language} ${id} inflects on as many of its numbers as English`,
          ).toBeGreaterThanOrEqual(pluralsOf(parse(english[id] ?? '')).size);
          expect(id.startsWith(`${area}.`), `${id} is named after its area (${area}.…)`).toBe(true);
        }
      }
    });
  }

  it('main’s own surfaces (tray, native dialogs and start, menu, browser host) are translated: no French or German message left in English', () => {
    // The same words in that language, on purpose.
    const SAME_WORDS: Readonly<Record<string, readonly string[]>> = {
      fr: ['tray.tooltip'],
      de: ['tray.tooltip', 'shell.manifestFilter'],
    };
    for (const area of ['tray', 'shell', 'menu', 'host'] as const) {
      const english = CATALOG_AREAS[area].en as Record<string, string>;
      for (const language of ['fr', 'de'] as const) {
        const catalog = CATALOG_AREAS[area][language] as Record<string, string>;
        const untranslated = Object.keys(english).filter(
          (id) => catalog[id] === english[id] && !SAME_WORDS[language]?.includes(id),
        );
        expect(untranslated, `${language}/${area}.json`).toEqual([]);
      }
    }
  });

  it('the tray’s counts take their language’s plural on their number: 1 envoi, 2 envois; 1 wird, 2 werden gesendet', () => {
    const fr = createTranslator('fr');
    const de = createTranslator('de');
    expect([1, 2].map((count) => fr.t('tray.sending', { count }))).toEqual([
      '1 envoi en cours',
      '2 envois en cours',
    ]);
    expect([1, 2].map((count) => fr.t('tray.completedToday', { count }))).toEqual([
      '1 terminé aujourd’hui',
      '2 terminés aujourd’hui',
    ]);
    expect([1, 2].map((count) => de.t('tray.sending', { count }))).toEqual([
      '1 wird gesendet',
      '2 werden gesendet',
    ]);
    expect([1, 2].map((count) => de.t('tray.waiting', { count }))).toEqual([
      '1 wartet auf Unterschriften',
      '2 warten auf Unterschriften',
    ]);
    expect(fr.t('tray.title', { sending: 1, waiting: 2, done: 2 })).toBe(
      '1 envoi · 2 en attente · 2 terminés',
    );
    expect(de.t('tray.title', { sending: 2, waiting: 1, done: 1 })).toBe(
      '2 werden gesendet · 1 wartet · 1 fertig',
    );
  });

  it('plurals follow each language (Intl.PluralRules): French says "0 document", English "0 documents"', () => {
    const message = 'common.documents';
    const en = createTranslator('en');
    const fr = createTranslator('fr');
    expect(en.t(message, { count: 0 })).toBe('0 documents');
    expect(en.t(message, { count: 1 })).toBe('1 document');
    expect(fr.t(message, { count: 0 })).toBe('0 document');
    expect(fr.t(message, { count: 1200 })).toBe('1\u202f200 documents');
    expect(createTranslator('de').t(message, { count: 2 })).toBe('2 Dokumente');
  });
});
