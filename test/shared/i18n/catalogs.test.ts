/**
 * The catalogs a translator edits: every message of every area exists in English, French and
 * German, each parses as ICU MessageFormat, and each language uses the same arguments (a
 * `{count, plural, …}` in English is a plural in French and German too).
 */
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { CATALOG_AREAS } from '../../../shared/i18n/catalog';
import { LANGUAGES } from '../../../shared/i18n/languages';
import { createTranslator } from '../../../shared/i18n/translator';

/** The arguments of a message and their kinds ("count:plural", "name:argument"). */
function argumentsOf(elements: readonly MessageFormatElement[], found = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    if (element.type === TYPE.tag) {
      found.add(`<${element.value}>`);
      argumentsOf(element.children, found);
      continue;
    }
    found.add(`${element.value}:${TYPE[element.type]}`);
    if (element.type === TYPE.plural || element.type === TYPE.select)
      for (const option of Object.values(element.options)) argumentsOf(option.value, found);
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
          expect(id.startsWith(`${area}.`), `${id} is named after its area (${area}.…)`).toBe(true);
        }
      }
    });
  }

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
