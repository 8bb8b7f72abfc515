/**
 * The languages the desk speaks, and which one a person gets: their setting, or the first of
 * their system's preferred languages the desk speaks, or English.
 */
import { z } from 'zod';

export const LANGUAGES = ['en', 'fr', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

/** "system" follows the OS; a language pins it. */
export const languageSettingSchema = z.enum(['system', ...LANGUAGES]);
export type LanguageSetting = z.infer<typeof languageSettingSchema>;

/** Each language's name in itself, for the setting. */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  en: 'English',
  fr: 'Français',
  de: 'Deutsch',
};

function primary(tag: string): string {
  return tag.split(/[-_.@]/)[0]?.toLowerCase() ?? '';
}

function isLanguage(value: string): value is Language {
  return (LANGUAGES as readonly string[]).includes(value);
}

/**
 * The language and formatting locale for a setting and the system's preferred locales (BCP 47
 * or POSIX, e.g. "fr-CH", "de_DE.UTF-8"). The locale keeps the system's region when it speaks
 * the chosen language (Swiss French dates for "fr-CH"), otherwise it is the language alone.
 */
export function resolveLanguage(
  setting: LanguageSetting,
  systemLocales: readonly string[],
): { readonly language: Language; readonly locale: string } {
  const system = systemLocales.map((tag) => tag.split('.')[0]?.replace('_', '-') ?? tag).filter(Boolean);
  const found = system.map(primary).find(isLanguage);
  const language: Language = setting === 'system' ? (found ?? 'en') : setting;
  const regional = system.find((tag) => primary(tag) === language && tag.includes('-'));
  let locale: string = language;
  if (regional) {
    try {
      locale = Intl.getCanonicalLocales(regional)[0] ?? language;
    } catch {
      locale = language;
    }
  }
  return { language, locale };
}
