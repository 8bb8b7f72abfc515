/**
 * One way to speak a language, for main, the command line and the renderer alike: FormatJS
 * (ICU MessageFormat, `Intl.PluralRules` plurals, the locale's numbers and dates) over the
 * catalogs. The renderer's React tree uses the same catalogs through react-intl.
 */
import { createIntl, createIntlCache, type IntlShape } from '@formatjs/intl';
import { MESSAGES, type MessageId } from './catalog';
import type { Language } from './languages';

/** Values a message takes: numbers (plurals), strings, dates. */
export type MessageValues = Readonly<Record<string, string | number | Date>>;

export interface Translator {
  readonly language: Language;
  /** The formatting locale (e.g. "fr-CH"): dates and numbers. */
  readonly locale: string;
  /** The message `id` in this language, with its values. */
  t(id: MessageId, values?: MessageValues): string;
  readonly intl: IntlShape;
}

const cache = createIntlCache();

export function createTranslator(language: Language, locale: string = language): Translator {
  const intl = createIntl(
    {
      locale,
      defaultLocale: 'en',
      messages: MESSAGES[language],
      // A message missing in a language falls back to English; the catalog test keeps that from shipping.
      onError: () => undefined,
    },
    cache,
  );
  return {
    language,
    locale,
    intl,
    t: (id, values) =>
      intl.formatMessage(
        { id, defaultMessage: MESSAGES.en[id] },
        values as Record<string, string | number | Date>,
      ),
  };
}

let english: Translator['t'] | undefined;

/**
 * English, made once: the words where no language is asked for (the command line, the words
 * stored with a batch's events, which a view words anew in the person's language).
 */
export function englishWords(): Translator['t'] {
  return (english ??= createTranslator('en').t);
}
