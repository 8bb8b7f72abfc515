import { describe, expect, it } from 'vitest';
import type { DeskContext } from '../../../main/app/desk-context';
import { ipcEvents } from '../../../main/app/ipc-events';
import type { PollerEvent } from '../../../main/tracking/status-poller';
import { createTranslator } from '../../../shared/i18n/translator';
import type { Language } from '../../../shared/i18n/languages';

/** The OS notification of a contract fully signed, as the person's language words it. */
function notificationIn(
  language: Language,
  event: PollerEvent = { type: 'completed', batchId: 'b1', documentId: 'd1', externalReference: 'CTR-7' },
): { title: string; body: string } {
  const shown: { title: string; body: string }[] = [];
  // Only what the 'completed' event reaches: the page's event and the notifier.
  const ctx = {
    deps: {
      emit: () => undefined,
      notifier: { notify: (title: string, body: string) => shown.push({ title, body }) },
    },
    translator: () => createTranslator(language),
    store: { get: (batchId: string) => (batchId === 'b1' ? { name: 'Monday contracts' } : undefined) },
  } as unknown as DeskContext;
  ipcEvents(ctx).onPollerEvent(event);
  expect(shown).toHaveLength(1);
  return shown[0]!;
}

describe('the notification of a fully signed contract', () => {
  it('speaks the person’s language', () => {
    expect(notificationIn('en')).toEqual({
      title: 'Contract fully signed',
      body: 'CTR-7 in the batch “Monday contracts” is fully signed; its evidence is ready.',
    });
    expect(notificationIn('fr')).toEqual({
      title: 'Contrat entièrement signé',
      body: 'CTR-7 du lot «\u00a0Monday contracts\u00a0» est entièrement signé\u00a0; son justificatif est prêt.',
    });
    expect(notificationIn('de').title).toBe('Vertrag vollständig unterschrieben');
    expect(notificationIn('de').body).toContain(
      'CTR-7 im Stapel „Monday contracts“ ist vollständig unterschrieben',
    );
  });
});

describe('the notification of a contract that ended at its service without completion', () => {
  it("says so with the service's own word, in the person's language", () => {
    const ended: PollerEvent = {
      type: 'ended',
      batchId: 'b1',
      documentId: 'd1',
      externalReference: 'CTR-8',
      status: 'declined',
    };
    expect(notificationIn('en', ended)).toEqual({
      title: 'Contract ended without signing',
      body: 'CTR-8 in the batch “Monday contracts” ended at the service: declined.',
    });
    expect(notificationIn('fr', ended).body).toBe(
      'CTR-8 du lot «\u00a0Monday contracts\u00a0» a pris fin auprès du service\u00a0: declined.',
    );
    expect(notificationIn('de', ended).title).toBe('Vertrag ohne Unterschrift beendet');
  });
});
