import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DocumentEditor } from '../../renderer/src/screens/document-editor';
import { useDesk } from '../../renderer/src/state/store';
import type { Language } from '../../shared/i18n/languages';
import { createTranslator } from '../../shared/i18n/translator';
import type { DocumentView } from '../../shared/ipc/views';

/**
 * The document editor as a secretary reads it (found by an outside tester: its fields used the
 * service's words, "Participants added after the request is created", and Role was required but
 * not marked): plain words in English, French and German, every required field marked "*" and
 * required for assistive technology, and a note saying what the mark means. Drawn once, as the
 * server draws it.
 */
beforeAll(() => vi.stubGlobal('window', { document: { activeElement: null } }));
const FIRST_TRANSLATOR = useDesk.getInitialState().translator;
afterAll(() => {
  vi.unstubAllGlobals();
  Object.assign(useDesk.getInitialState(), { translator: FIRST_TRANSLATOR });
});

const DOCUMENT = {
  id: 'doc-1',
  externalReference: 'HR-7',
  storedFilename: 'contract.pdf',
  sizeBytes: 2048,
  recipients: [{ participant_type: 'signer', role: '', name: 'Ann', email: 'ann@example.com' }],
  extraParticipants: [{ participant_type: 'observer', role: 'HR', name: 'Bob', email: 'bob@example.com' }],
  options: {},
} as unknown as DocumentView;

function editorIn(language: Language): string {
  // The server draws from the store's first state (zustand's server snapshot): in that language.
  Object.assign(useDesk.getInitialState(), { translator: createTranslator(language) });
  return renderToStaticMarkup(
    <DocumentEditor
      batchId="b"
      document={DOCUMENT}
      defaults={{ defaultRecipients: [] }}
      inFlight={false}
      onClose={() => undefined}
    />,
  );
}

/** Each labelled field's caption (its visible words, the "*" included) and whether it is required. */
function fields(html: string): { caption: string; required: boolean }[] {
  const labels = html.match(/<label class="field">[\s\S]*?<\/label>/g) ?? [];
  return labels.map((label) => ({
    caption: label
      .split(/<input|<select/)[0]!
      .replace(/<span class="visually-hidden">[\s\S]*?<\/span>/g, '')
      .replace(/<span class="required-mark" aria-hidden="true"><\/span>/g, ' *')
      .replace(/<[^>]+>/g, '')
      .trim(),
    required: /<(input|select)[^>]* required=""/.test(label),
  }));
}

const WORDS = {
  en: {
    note: 'Fields marked * are required.',
    later: 'Other participants (added just after sending)',
    required: ['Reference *', 'Name *', 'E-mail *', 'Role *'],
    optional: ['Type', 'Signing order'],
  },
  fr: {
    note: 'Les champs marqués * sont obligatoires.',
    later: 'Autres participants (ajoutés juste après l’envoi)',
    required: ['Référence *', 'Nom *', 'E-mail *', 'Rôle *'],
    optional: ['Type', 'Ordre de signature'],
  },
  de: {
    note: 'Mit * markierte Felder sind Pflichtfelder.',
    later: 'Weitere Beteiligte (direkt nach dem Senden hinzugefügt)',
    required: ['Referenz *', 'Name *', 'E-Mail *', 'Rolle *'],
    optional: ['Art', 'Signaturreihenfolge'],
  },
} as const;

describe('the document editor’s words and required fields', () => {
  for (const language of ['en', 'fr', 'de'] as const) {
    it(`in ${language}: plain words, every required field marked and required, the mark explained`, () => {
      const html = editorIn(language);
      const words = WORDS[language];
      expect(html).toContain(words.note);
      expect(html).toContain(`<legend>${words.later}</legend>`);
      // The service's words are gone.
      expect(html).not.toMatch(
        /after the request is created|après la création de la demande|nach dem Erstellen der Anfrage/,
      );
      const shown = fields(html);
      for (const caption of words.required)
        expect(
          shown.filter((field) => field.caption === caption).every((field) => field.required),
          caption,
        ).toBe(true);
      // Name, e-mail and role in each of the two participant rows, and the reference.
      expect(shown.filter((field) => field.required)).toHaveLength(7);
      for (const caption of words.optional)
        expect(shown.filter((field) => field.caption === caption).map((field) => field.required)).toEqual([
          false,
          false,
        ]);
    });
  }
});
