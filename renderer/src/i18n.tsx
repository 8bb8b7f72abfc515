/**
 * The renderer's language: one translator in the store (shared/i18n), which screens read with
 * `useT()`, and react-intl's provider over the same catalogs for anything that needs it.
 */
import { useEffect, type ReactNode } from 'react';
import { IntlProvider } from 'react-intl';
import { MESSAGES } from '../../shared/i18n/catalog';
import type { Translator } from '../../shared/i18n/translator';
import { useDesk } from './state/store';

/** The current language's `t(id, values)`. */
export function useT(): Translator['t'] {
  return useDesk((state) => state.translator).t;
}

/** The current translator (its locale for dates and numbers). */
export function useTranslator(): Translator {
  return useDesk((state) => state.translator);
}

export function LanguageProvider({ children }: { readonly children: ReactNode }) {
  const translator = useTranslator();
  useEffect(() => {
    document.documentElement.lang = translator.locale;
  }, [translator.locale]);
  return (
    <IntlProvider locale={translator.locale} defaultLocale="en" messages={MESSAGES[translator.language]}>
      {children}
    </IntlProvider>
  );
}
