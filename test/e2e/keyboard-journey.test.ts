/**
 * The desk with the keyboard alone, at 1280 × 800, in English, French and German (found by an
 * outside tester): after every action the focus is where the work is — the new batch's heading
 * after "Create batch", the preview after "Import manifest…", the new recipient's Name after "Add
 * recipient", the first wrong field after a refused save (marked and described), the review's
 * summary rather than its Send button (a second Enter sends nothing unread), the screen's heading
 * after a connection is deleted — never the page's body. Deleting a connection that open requests
 * use says how many and what happens, asks for its name, leaves the top bar true, and the batch's
 * actions that need the connection say why instead of failing. axe finds no serious violation.
 */
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HostBridge } from '../../shared/ipc/bridge';
import type { Language } from '../../shared/i18n/languages';
import { createTranslator } from '../../shared/i18n/translator';
import { launchApp, type App } from './app-harness';
import { seriousViolations } from './axe-scan';
import { registerJourneyClient, SAMPLE_MANIFEST } from './journeys';

/** The words this journey checks by hand, per language (as a person reads them). */
const WORDS = {
  en: {
    locale: 'en-GB',
    inUse: '1 batch uses this connection: 3 requests waiting for signatures.',
    noneActive: 'No active connection (1 saved): choose one',
  },
  fr: {
    locale: 'fr-FR',
    inUse: '1 lot utilise cette connexion\u00a0: 3 demandes en attente de signatures.',
    noneActive: 'Aucune connexion active (1 enregistrée)\u00a0: en choisir une',
  },
  de: {
    locale: 'de-DE',
    inUse: '1 Stapel verwendet diese Verbindung: 3 Anfragen warten auf Unterschriften.',
    noneActive: 'Keine aktive Verbindung (1 gespeichert): eine auswählen',
  },
} as const;

let app: App | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

/** Waits until `target` holds the focus; fails with what holds it instead. */
async function focused(target: Locator): Promise<void> {
  await vi.waitFor(
    async () => {
      if (await target.evaluate((element) => element === document.activeElement)) return;
      const holder = await target.page().evaluate(() => document.activeElement?.outerHTML.slice(0, 160));
      throw new Error(`the focus is on ${holder}`);
    },
    { timeout: 10_000, interval: 50 },
  );
}

/** Presses Tab (or Shift+Tab) until `target` has the focus, as a keyboard user does. */
async function tabTo(
  page: Page,
  target: Locator,
  key: 'Tab' | 'Shift+Tab' = 'Tab',
  limit = 120,
): Promise<void> {
  await target.waitFor();
  for (let presses = 0; presses < limit; presses += 1) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press(key);
  }
  throw new Error(`not reached with ${limit} presses of ${key}`);
}

/** Tabs to `target` and presses Enter on it. */
async function press(page: Page, target: Locator, key: 'Tab' | 'Shift+Tab' = 'Tab'): Promise<void> {
  await tabTo(page, target, key);
  await page.keyboard.press('Enter');
}

/** The text of the elements that describe `field` (`aria-describedby`). */
function description(field: Locator): Promise<string> {
  return field.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  );
}

/** Saves a connection through the page's own bridge: the set-up, not what this journey looks at. */
async function saveConnection(
  page: Page,
  input: { name: string; baseUrl: string; clientId: string; secret: string },
) {
  const answer = await page.evaluate(
    (profile) => (window as unknown as { desk: HostBridge }).desk.profiles.save(profile),
    input,
  );
  expect(answer.ok).toBe(true);
}

describe('the desk with the keyboard alone, 1280 × 800', () => {
  for (const language of ['en', 'fr', 'de'] as const satisfies readonly Language[]) {
    it(`in ${language}: the focus follows the work, and a connection in use is deleted only knowingly`, async () => {
      const words = WORDS[language];
      app = await launchApp({ host: 'browser', systemLocales: [words.locale] });
      const { page, sim } = app;
      await page.setViewportSize({ width: 1280, height: 800 });
      const { t } = createTranslator(language);
      const found: string[] = [];
      const scan = async (screen: string) =>
        found.push(...(await seriousViolations(page, `${screen} (${language})`)));
      const button = (name: string, scope: Page | Locator = page) =>
        scope.getByRole('button', { name, exact: true });

      // Set-up: two connections to the simulator, each with its own client; the first is active.
      await page.getByRole('heading', { name: t('connections.title'), level: 2 }).waitFor();
      const office = registerJourneyClient(app);
      const spare = registerJourneyClient(app);
      await saveConnection(page, {
        name: 'Office',
        baseUrl: sim.baseUrl,
        clientId: office.clientId,
        secret: office.clientSecret,
      });
      await saveConnection(page, {
        name: 'Spare',
        baseUrl: sim.baseUrl,
        clientId: spare.clientId,
        secret: spare.clientSecret,
      });
      await page.getByText(t('common.activeConnection', { name: 'Office' })).waitFor();

      // Create batch: the new batch's heading takes the focus (not the page's body).
      await press(page, button(t('common.batches')));
      await tabTo(page, page.getByLabel(t('batches.newName')));
      await page.keyboard.type('Clavier');
      await page.keyboard.press('Enter');
      await focused(page.getByRole('heading', { name: 'Clavier', level: 2 }));

      // Rename: back on Rename once the name is saved.
      const rename = (name: string) =>
        page.getByRole('button', { name: `${t('batch.rename')} ${t('batch.renameBatch', { name })}` });
      await press(page, rename('Clavier'));
      await focused(page.getByLabel(t('batches.renameLabel')));
      await page.keyboard.type(' 2026');
      await page.keyboard.press('Enter');
      await focused(rename('Clavier 2026'));

      // Import manifest…: the preview's heading, then back on "Import manifest…" once imported.
      await app.answerNextDialog(SAMPLE_MANIFEST);
      const importManifest = button(t('batch.importManifest'));
      await press(page, importManifest);
      await focused(page.getByRole('heading', { name: t('manifest.title', { name: 'manifest.csv' }) }));
      await press(page, button(t('manifest.import', { count: 3 })));
      const table = page.getByRole('region', { name: t('documents.region', { batch: 'Clavier 2026' }) });
      await table.getByRole('rowheader', { name: 'NDA-2026-017' }).waitFor();
      await focused(importManifest);

      // The editor: "Add recipient" puts the focus on the new recipient's Name, with no Tab.
      await press(
        page,
        table.getByRole('button', { name: t('editor.title', { reference: 'NDA-2026-017' }) }),
      );
      const editor = page.getByRole('dialog', { name: t('editor.title', { reference: 'NDA-2026-017' }) });
      await editor.waitFor();
      const row = (number: number) =>
        editor.getByRole('group', {
          name: t('common.participantRow', { noun: 'recipient', number }),
          exact: true,
        });
      // "Recipient 1", "Destinataire 1", "Empfänger 1": the rows there are before one is added.
      const noun = t('common.participantRow', { noun: 'recipient', number: 1 }).replace(/ 1$/, '');
      const before = await editor.getByRole('group', { name: new RegExp(`^${noun} \\d+$`) }).count();
      expect(before).toBeGreaterThan(0);
      await press(page, button(t('common.addParticipant', { noun: 'recipient' }), editor));
      const added = row(before + 1);
      await focused(added.getByLabel(t('common.participantName')));
      await page.keyboard.type('Zoé Martin');
      await scan('editor with a new recipient');

      // A refused Save: the first wrong field takes the focus, marked and described by its message.
      await press(page, button(t('editor.save'), editor));
      const email = added.getByLabel(t('common.participantEmail'));
      await focused(email);
      expect(await email.getAttribute('aria-invalid')).toBe('true');
      expect(await description(email)).toContain(t('common.fieldRequired', { field: 'email' }));
      expect(await email.evaluate((element) => (element as HTMLInputElement).required)).toBe(true);

      // Remove it: the row before takes the focus, not the page's body; then the save goes through.
      const label = t('common.participantRow', { noun: 'recipient', number: before + 1 });
      await press(page, added.getByRole('button', { name: `${t('common.remove')} ${label}` }));
      await focused(row(before).getByLabel(t('common.participantName')));
      await press(page, button(t('editor.save'), editor));
      await editor.waitFor({ state: 'hidden' });
      await focused(table.getByRole('button', { name: t('editor.title', { reference: 'NDA-2026-017' }) }));

      // The review opens on its summary: a second Enter sends nothing; Send is one Tab away.
      await press(page, button(t('batch.send')), 'Shift+Tab');
      const review = page.getByRole('dialog', { name: t('review.title', { name: 'Clavier 2026' }) });
      const summary = review.locator('.review-summary');
      await focused(summary);
      await page.keyboard.press('Enter');
      expect(await review.isVisible()).toBe(true);
      expect(sim.state.requests()).toHaveLength(0);
      await scan('review');
      await page.keyboard.press('Tab');
      await focused(button(t('review.confirm', { count: 3, host: new URL(sim.baseUrl).host }), review));
      await page.keyboard.press('Enter');
      await page.getByText(t('batch.progress', { sent: 3, total: 3 })).waitFor({ timeout: 30_000 });

      // Deleting the connection those requests use: said with the count, the name typed to confirm.
      await press(page, button(t('common.connections')), 'Shift+Tab');
      // Edit goes to the form's first field to change; Cancel comes back to the row's Edit.
      const spareRow = page.getByRole('row', { name: /Spare/ });
      await press(page, button(t('connections.edit'), spareRow));
      await focused(page.getByLabel(t('connections.baseUrl')));
      await press(page, button(t('common.cancel')));
      await focused(button(t('connections.edit'), spareRow));
      const officeRow = page.getByRole('row', { name: /Office/ });
      await press(page, button(t('connections.delete'), officeRow));
      const dialog = page.getByRole('dialog', { name: t('connections.deleteTitle', { name: 'Office' }) });
      await dialog.getByText(words.inUse).waitFor();
      const typed = dialog.getByLabel(t('connections.deleteTypeName', { name: 'Office' }));
      await focused(typed);
      await scan('deleting a connection in use');
      // Enter without the name deletes nothing, and says what is missing.
      await page.keyboard.press('Enter');
      await dialog.getByText(t('connections.deleteNameMismatch')).waitFor();
      expect(app.callsToMain).not.toContain('profiles.delete');
      await focused(typed);
      await page.keyboard.type('Office');
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'hidden' });
      await focused(page.getByRole('heading', { name: t('connections.title'), level: 2 }));
      expect(await page.getByRole('row', { name: /Office/ }).count()).toBe(0);

      // The top bar stays true: none is active while one is saved, with the way to choose one.
      await button(words.noneActive).waitFor();
      await page.getByText(t('connections.noneActive')).waitFor();
      await scan('connections, none active');

      // The batch: what needs its connection says why, and does nothing when pressed.
      await press(page, button(t('common.batches')), 'Shift+Tab');
      await press(page, button('Clavier 2026'));
      await focused(page.getByRole('heading', { name: 'Clavier 2026', level: 2 }));
      const problem = page.getByRole('alert').filter({ hasText: new URL(sim.baseUrl).host });
      await problem.waitFor();
      const reason = (await problem.textContent()) ?? '';
      const refresh = button(t('batch.refresh'));
      const ceremony = table.getByRole('button', {
        name: `${t('documents.action.openCeremony')} ${t('documents.action.openCeremonyFor', { reference: 'NDA-2026-017' })}`,
      });
      for (const action of [refresh, ceremony]) {
        expect(await action.getAttribute('aria-disabled')).toBe('true');
        expect(await description(action)).toBe(reason);
      }
      const calls = app.callsToMain.length;
      await press(page, refresh);
      await press(page, ceremony);
      expect(app.callsToMain.slice(calls)).not.toContain('tracking.refreshNow');
      expect(app.callsToMain.slice(calls)).not.toContain('ceremony.open');
      expect(app.ceremonies).toHaveLength(0);
      await scan('batch whose connection is gone');

      expect(found).toEqual([]);
    }, 180_000);
  }
});
