import { describe, expect, it } from 'vitest';
import type { DeskContext } from '../../../main/app/desk-context';
import { ipcEvents } from '../../../main/app/ipc-events';
import { createTranslator } from '../../../shared/i18n/translator';
import type { Language } from '../../../shared/i18n/languages';

/** The OS notification of a contract fully signed, as the person's language words it. */
function notificationIn(language: Language): { title: string; body: string } {
  const shown: { title: string; body: string }[] = [];
  // Only what the 'completed' event reaches: the page's event and the notifier.
  const ctx = {
    deps: {
      emit: () => undefined,
      notifier: { notify: (title: string, body: string) => shown.push({ title, body }) },
    },
    translator: () => createTranslator(language),
  } as unknown as DeskContext;
  ipcEvents(ctx).onPollerEvent({
    type: 'completed',
    batchId: 'b1',
    documentId: 'd1',
    externalReference: 'CTR-7',
  });
  expect(shown).toHaveLength(1);
  return shown[0]!;
}

describe('the notification of a fully signed contract', () => {
  it('speaks the person’s language', () => {
    expect(notificationIn('en')).toEqual({
      title: 'Contract fully signed',
      body: 'CTR-7 is fully signed; its evidence is ready.',
    });
    expect(notificationIn('fr')).toEqual({
      title: 'Contrat entièrement signé',
      body: 'CTR-7 est entièrement signé\u00a0; son justificatif est prêt.',
    });
    expect(notificationIn('de').title).toBe('Vertrag vollständig unterschrieben');
    expect(notificationIn('de').body).toContain('CTR-7 ist vollständig unterschrieben');
  });
});
