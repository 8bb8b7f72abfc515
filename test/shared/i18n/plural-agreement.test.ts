/**
 * Plurals on the right number, in every language: the words a plural inflects agree with the
 * number they stand next to ("1 document envoyé sur 2", never "1 documents envoyés sur 2").
 */
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { CATALOG_AREAS } from '../../../shared/i18n/catalog';
import type { MessageId } from '../../../shared/i18n/catalog';
import { LANGUAGES, type Language } from '../../../shared/i18n/languages';
import { createTranslator, type MessageValues } from '../../../shared/i18n/translator';

/**
 * Plurals whose inflected words come before their number and agree with that same number,
 * reviewed one by one ("waiting for the answers to # calls": answers and calls agree).
 */
const REVIEWED_WORDS_BEFORE_NUMBER: readonly string[] = ['waits.draining'];

/** The words of a branch before its number (`#`); undefined when the branch does not show it. */
function wordsBeforeNumber(elements: readonly MessageFormatElement[]): string | undefined {
  let words = '';
  for (const element of elements) {
    if (element.type === TYPE.pound) return words;
    words += element.type === TYPE.literal ? element.value : `{${'value' in element ? element.value : ''}}`;
  }
  return undefined;
}

/** Each plural of a message whose branches change the words before its number: `argument: [words…]`. */
function inflectedBeforeNumber(elements: readonly MessageFormatElement[], found: string[] = []): string[] {
  for (const element of elements) {
    if (element.type === TYPE.tag) inflectedBeforeNumber(element.children, found);
    if (element.type !== TYPE.plural && element.type !== TYPE.select) continue;
    if (element.type === TYPE.plural) {
      const before = Object.entries(element.options)
        .filter(([selector]) => !selector.startsWith('='))
        .map(([, option]) => wordsBeforeNumber(option.value))
        .filter((words) => words !== undefined);
      if (new Set(before).size > 1) found.push(`${element.value}: ${before.join(' | ')}`);
    }
    for (const option of Object.values(element.options)) inflectedBeforeNumber(option.value, found);
  }
  return found;
}

describe('the words a plural inflects come after the number they agree with', () => {
  for (const [area, languages] of Object.entries(CATALOG_AREAS)) {
    it(`${area}: no plural inflects words that stand before its number (next to another one)`, () => {
      for (const language of LANGUAGES) {
        const catalog = languages[language] as Record<string, string>;
        for (const [id, message] of Object.entries(catalog)) {
          if (REVIEWED_WORDS_BEFORE_NUMBER.includes(id)) continue;
          expect(inflectedBeforeNumber(parse(message)), `${language} ${id}`).toEqual([]);
        }
      }
    });
  }
});

/** `id` in each language for each of `values`. */
function said(id: MessageId, values: readonly MessageValues[]): Record<Language, string[]> {
  const all = {} as Record<Language, string[]>;
  for (const language of LANGUAGES) {
    const { t } = createTranslator(language);
    all[language] = values.map((value) => t(id, value));
  }
  return all;
}

describe('messages with two numbers: each word agrees with its own', () => {
  it('batch.progress: the documents sent agree with how many were sent (French), or with the total (English, German)', () => {
    expect(
      said('batch.progress', [
        { sent: 1, total: 2 },
        { sent: 2, total: 2 },
        { sent: 1, total: 1 },
        { sent: 0, total: 2 },
      ]),
    ).toEqual({
      en: ['1 of 2 documents sent', '2 of 2 documents sent', '1 of 1 document sent', '0 of 2 documents sent'],
      fr: [
        '1 document envoyé sur 2',
        '2 documents envoyés sur 2',
        '1 document envoyé sur 1',
        '0 document envoyé sur 2',
      ],
      de: [
        '1 von 2 Dokumenten gesendet',
        '2 von 2 Dokumenten gesendet',
        '1 von 1 Dokument gesendet',
        '0 von 2 Dokumenten gesendet',
      ],
    });
  });

  it('batch.shownOf: "1 of 2 documents", "1 of 1 document"', () => {
    expect(
      said('batch.shownOf', [
        { shown: 1, total: 2 },
        { shown: 1, total: 1 },
      ]),
    ).toEqual({
      en: ['1 of 2 documents', '1 of 1 document'],
      fr: ['1 sur 2 documents', '1 sur 1 document'],
      de: ['1 von 2 Dokumenten', '1 von 1 Dokument'],
    });
  });

  it('manifest.tooFewFields: the values and the header’s columns each agree with their own number', () => {
    expect(
      said('manifest.tooFewFields', [
        { count: 1, expected: 1 },
        { count: 2, expected: 2 },
      ]),
    ).toEqual({
      en: ['has 1 value but the header row has 1 column', 'has 2 values but the header row has 2 columns'],
      fr: [
        'a 1 valeur mais la ligne d’en-tête a 1 colonne',
        'a 2 valeurs mais la ligne d’en-tête a 2 colonnes',
      ],
      de: ['hat 1 Wert, aber die Kopfzeile hat 1 Spalte', 'hat 2 Werte, aber die Kopfzeile hat 2 Spalten'],
    });
    const { t } = createTranslator('en');
    expect(t('manifest.tooManyFields', { count: 2, expected: 1, delimiter: ';' })).toMatch(
      /^has 2 values but the header row has 1 column \(/,
    );
  });
});

describe('the counts this issue’s words use, for 1 and 2, in every language', () => {
  it('review.sentNeedsCheck', () => {
    expect(said('review.sentNeedsCheck', [{ count: 1 }, { count: 2 }])).toEqual({
      en: ['1 document needs your check.', '2 documents need your check.'],
      fr: ['1 document demande votre vérification.', '2 documents demandent votre vérification.'],
      de: ['1 Dokument braucht Ihre Prüfung.', '2 Dokumente brauchen Ihre Prüfung.'],
    });
  });

  it('batch.goneHelp and common.refreshingPaused begin with the count and its own words', () => {
    const start = (texts: Record<Language, string[]>) =>
      Object.fromEntries(
        Object.entries(texts).map(([language, each]) => [language, each.map((text) => text.split(':')[0])]),
      );
    expect(start(said('batch.goneHelp', [{ count: 1 }, { count: 2 }]))).toEqual({
      en: ['1 document is no longer at the service', '2 documents are no longer at the service'],
      fr: ['1 document n’est plus connu du service ', '2 documents ne sont plus connus du service '],
      de: [
        '1 Dokument ist beim Dienst nicht mehr vorhanden',
        '2 Dokumente sind beim Dienst nicht mehr vorhanden',
      ],
    });
    expect(said('common.refreshingPaused', [{ count: 1 }, { count: 2 }]).en).toEqual([
      'Tracking is paused: checking 1 request once now, politely paced; tracking stays paused.',
      'Tracking is paused: checking 2 requests once now, politely paced; tracking stays paused.',
    ]);
    expect(
      said('common.refreshingPaused', [{ count: 1 }, { count: 2 }]).de.map((text) => text.split(';')[0]),
    ).toEqual([
      'Die Verfolgung ist angehalten: 1 Anfrage wird jetzt einmal geprüft, in maßvollem Tempo',
      'Die Verfolgung ist angehalten: 2 Anfragen werden jetzt einmal geprüft, in maßvollem Tempo',
    ]);
  });
});

describe('pronouns agree with the count they stand for, after it', () => {
  it('batches.deleteSent: deleting a batch stops tracking that document, or those documents', () => {
    const sentence = (texts: Record<Language, string[]>) =>
      Object.fromEntries(
        Object.entries(texts).map(([language, each]) => [
          language,
          each.map((text) => text.split(/[.] /)[1]),
        ]),
      );
    expect(
      sentence(
        said('batches.deleteSent', [
          { name: 'B', count: 1 },
          { name: 'B', count: 2 },
        ]),
      ),
    ).toEqual({
      en: [
        'Deleting it stops tracking that document here (the request stays at the service)',
        'Deleting it stops tracking those documents here (the requests stay at the service)',
      ],
      fr: [
        'Le supprimer arrête son suivi ici (la demande reste auprès du service)',
        'Le supprimer arrête leur suivi ici (les demandes restent auprès du service)',
      ],
      de: [
        'Wenn Sie ihn löschen, wird es hier nicht mehr verfolgt (die Anfrage bleibt beim Dienst)',
        'Wenn Sie ihn löschen, werden sie hier nicht mehr verfolgt (die Anfragen bleiben beim Dienst)',
      ],
    });
  });

  it('connections.testMissingScopes: the permission missing, or those missing, are to be granted', () => {
    const values = (count: number) => ({ count, missing: 'signing.read', required: 'signing.read' });
    const ask = (texts: Record<Language, string[]>) =>
      Object.fromEntries(
        Object.entries(texts).map(([language, each]) => [language, each.map((text) => text.split(/: /)[1])]),
      );
    expect(ask(said('connections.testMissingScopes', [values(1), values(2)]))).toEqual({
      en: [
        'ask your administrator to grant it, then test again.',
        'ask your administrator to grant them, then test again.',
      ],
      fr: [
        'demandez à votre administrateur de l’accorder, puis testez de nouveau.',
        'demandez à votre administrateur de les accorder, puis testez de nouveau.',
      ],
      de: [
        'Bitten Sie Ihre Administration, sie zu erteilen, und testen Sie dann erneut.',
        'Bitten Sie Ihre Administration, sie zu erteilen, und testen Sie dann erneut.',
      ],
    });
  });
});
