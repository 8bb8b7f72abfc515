import { useId } from 'react';
import { LANGUAGE_NAMES, LANGUAGES, languageSettingSchema } from '../../../shared/i18n/languages';
import { useT } from '../i18n';
import { useDesk } from '../state/store';

/**
 * The language the desk speaks: the system's (named, so the person knows which it is) or one
 * chosen. Main keeps the choice (settings.json) and the whole page changes at once.
 */
export function LanguageSetting() {
  const t = useT();
  const id = useId();
  const info = useDesk((state) => state.info);
  const setLanguage = useDesk((state) => state.actions.app.setLanguage);
  if (!info) return null;
  return (
    <span className="language-setting">
      <label htmlFor={id}>{t('settings.language')}</label>
      <select
        id={id}
        value={info.languageSetting}
        onChange={(event) => {
          const setting = languageSettingSchema.safeParse(event.target.value);
          if (setting.success) void setLanguage(setting.data);
        }}
      >
        <option value="system">
          {t('settings.system', { language: LANGUAGE_NAMES[info.systemLanguage] })}
        </option>
        {LANGUAGES.map((language) => (
          // Each language is named in itself, whatever the page speaks now.
          <option key={language} value={language} lang={language}>
            {LANGUAGE_NAMES[language]}
          </option>
        ))}
      </select>
    </span>
  );
}
