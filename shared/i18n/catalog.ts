/**
 * Every message of the desk, in each language: one JSON file per area and language under
 * catalog/<language>/, for translators to edit (ICU MessageFormat: plurals, selects, numbers).
 * English is the reference: a message id is typed against it, and a test fails when another
 * language lacks a message or disagrees on its arguments (test/shared/i18n/catalogs.test.ts).
 */
import type { Language } from './languages';
import en_common from './catalog/en/common.json';
import en_connections from './catalog/en/connections.json';
import en_batches from './catalog/en/batches.json';
import en_batch from './catalog/en/batch.json';
import en_documents from './catalog/en/documents.json';
import en_editor from './catalog/en/editor.json';
import en_check from './catalog/en/check.json';
import en_manifest from './catalog/en/manifest.json';
import en_review from './catalog/en/review.json';
import en_preview from './catalog/en/preview.json';
import en_report from './catalog/en/report.json';
import en_errors from './catalog/en/errors.json';
import en_host from './catalog/en/host.json';
import en_waits from './catalog/en/waits.json';
import en_people from './catalog/en/people.json';
import en_settings from './catalog/en/settings.json';
import en_menu from './catalog/en/menu.json';
import en_tray from './catalog/en/tray.json';
import en_shell from './catalog/en/shell.json';
import fr_common from './catalog/fr/common.json';
import fr_connections from './catalog/fr/connections.json';
import fr_batches from './catalog/fr/batches.json';
import fr_batch from './catalog/fr/batch.json';
import fr_documents from './catalog/fr/documents.json';
import fr_editor from './catalog/fr/editor.json';
import fr_check from './catalog/fr/check.json';
import fr_manifest from './catalog/fr/manifest.json';
import fr_review from './catalog/fr/review.json';
import fr_preview from './catalog/fr/preview.json';
import fr_report from './catalog/fr/report.json';
import fr_errors from './catalog/fr/errors.json';
import fr_host from './catalog/fr/host.json';
import fr_waits from './catalog/fr/waits.json';
import fr_people from './catalog/fr/people.json';
import fr_settings from './catalog/fr/settings.json';
import fr_menu from './catalog/fr/menu.json';
import fr_tray from './catalog/fr/tray.json';
import fr_shell from './catalog/fr/shell.json';
import de_common from './catalog/de/common.json';
import de_connections from './catalog/de/connections.json';
import de_batches from './catalog/de/batches.json';
import de_batch from './catalog/de/batch.json';
import de_documents from './catalog/de/documents.json';
import de_editor from './catalog/de/editor.json';
import de_check from './catalog/de/check.json';
import de_manifest from './catalog/de/manifest.json';
import de_review from './catalog/de/review.json';
import de_preview from './catalog/de/preview.json';
import de_report from './catalog/de/report.json';
import de_errors from './catalog/de/errors.json';
import de_host from './catalog/de/host.json';
import de_waits from './catalog/de/waits.json';
import de_people from './catalog/de/people.json';
import de_settings from './catalog/de/settings.json';
import de_menu from './catalog/de/menu.json';
import de_tray from './catalog/de/tray.json';
import de_shell from './catalog/de/shell.json';

const en = {
  ...en_common,
  ...en_connections,
  ...en_batches,
  ...en_batch,
  ...en_documents,
  ...en_editor,
  ...en_check,
  ...en_manifest,
  ...en_review,
  ...en_preview,
  ...en_report,
  ...en_errors,
  ...en_host,
  ...en_waits,
  ...en_people,
  ...en_settings,
  ...en_menu,
  ...en_tray,
  ...en_shell,
};
const fr = {
  ...fr_common,
  ...fr_connections,
  ...fr_batches,
  ...fr_batch,
  ...fr_documents,
  ...fr_editor,
  ...fr_check,
  ...fr_manifest,
  ...fr_review,
  ...fr_preview,
  ...fr_report,
  ...fr_errors,
  ...fr_host,
  ...fr_waits,
  ...fr_people,
  ...fr_settings,
  ...fr_menu,
  ...fr_tray,
  ...fr_shell,
};
const de = {
  ...de_common,
  ...de_connections,
  ...de_batches,
  ...de_batch,
  ...de_documents,
  ...de_editor,
  ...de_check,
  ...de_manifest,
  ...de_review,
  ...de_preview,
  ...de_report,
  ...de_errors,
  ...de_host,
  ...de_waits,
  ...de_people,
  ...de_settings,
  ...de_menu,
  ...de_tray,
  ...de_shell,
};

/** Every message id (the English catalog is the reference). */
export type MessageId = keyof typeof en;

/** The areas, for the completeness test: each area's files must agree across languages. */
export const CATALOG_AREAS = {
  common: { en: en_common, fr: fr_common, de: de_common },
  connections: { en: en_connections, fr: fr_connections, de: de_connections },
  batches: { en: en_batches, fr: fr_batches, de: de_batches },
  batch: { en: en_batch, fr: fr_batch, de: de_batch },
  documents: { en: en_documents, fr: fr_documents, de: de_documents },
  editor: { en: en_editor, fr: fr_editor, de: de_editor },
  check: { en: en_check, fr: fr_check, de: de_check },
  manifest: { en: en_manifest, fr: fr_manifest, de: de_manifest },
  review: { en: en_review, fr: fr_review, de: de_review },
  preview: { en: en_preview, fr: fr_preview, de: de_preview },
  report: { en: en_report, fr: fr_report, de: de_report },
  errors: { en: en_errors, fr: fr_errors, de: de_errors },
  host: { en: en_host, fr: fr_host, de: de_host },
  waits: { en: en_waits, fr: fr_waits, de: de_waits },
  people: { en: en_people, fr: fr_people, de: de_people },
  settings: { en: en_settings, fr: fr_settings, de: de_settings },
  menu: { en: en_menu, fr: fr_menu, de: de_menu },
  tray: { en: en_tray, fr: fr_tray, de: de_tray },
  shell: { en: en_shell, fr: fr_shell, de: de_shell },
} as const satisfies Record<string, Record<Language, Record<string, string>>>;

export const MESSAGES: Readonly<Record<Language, Readonly<Record<string, string>>>> = { en, fr, de };
