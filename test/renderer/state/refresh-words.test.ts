/**
 * "Refresh statuses now" says what happens: while tracking runs, the requests are checked at
 * their pace; while it is paused, they are read once and tracking stays paused (in every language).
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { HostBridge } from '../../../shared/ipc/bridge';

let answer: { reading: number; unreadable?: number; paused?: true };

beforeEach(() => {
  vi.resetModules();
  const bridge = {
    host: 'electron',
    tracking: { refreshNow: async () => ({ ok: true, value: answer }) },
  } as unknown as HostBridge;
  vi.stubGlobal('window', { desk: bridge });
});
afterEach(() => vi.unstubAllGlobals());

async function noticeAfterRefresh(language: 'en' | 'fr' | 'de'): Promise<string | undefined> {
  const { useDesk } = await import('../../../renderer/src/state/store');
  const { withLanguage } = await import('../../../renderer/src/state/transitions');
  useDesk.setState((state) => withLanguage(state, language, language));
  await useDesk.getState().actions.tracking.refreshNow();
  return useDesk.getState().notices.at(-1)?.text;
}

it('while tracking is paused, it says the requests are read once and tracking stays paused', async () => {
  answer = { reading: 90, paused: true };
  expect(await noticeAfterRefresh('en')).toBe(
    'Tracking is paused: checking 90 requests once now, politely paced; tracking stays paused.',
  );
  expect(await noticeAfterRefresh('fr')).toMatch(
    /^Le suivi est suspendu\s: vérification unique de 90 demandes/,
  );
  expect(await noticeAfterRefresh('de')).toMatch(
    /^Die Verfolgung ist angehalten: 90 Anfragen werden jetzt einmal geprüft/,
  );
});

it('while tracking runs, it says nothing of a pause', async () => {
  answer = { reading: 1 };
  const text = await noticeAfterRefresh('en');
  expect(text).toMatch(/^Checking 1 request at its service/);
  expect(text).not.toMatch(/paused|once/);
});

it('never says there is nothing to check while requests wait at a connection that cannot be used: it says they are not checked, and why', async () => {
  answer = { reading: 0, unreadable: 2 };
  const text = await noticeAfterRefresh('en');
  expect(text).toBe(
    '2 requests wait at connections that cannot be used now, so they are not checked: their batches say why.',
  );
  expect(await noticeAfterRefresh('fr')).toMatch(/^2 demandes attendent .* ne sont donc pas vérifiées/);
  expect(await noticeAfterRefresh('de')).toMatch(/^2 Anfragen warten .* nicht geprüft/);
  // With others read meanwhile, both are said.
  answer = { reading: 3, unreadable: 1, paused: true };
  expect(await noticeAfterRefresh('en')).toBe(
    'Tracking is paused: checking 3 requests once now, politely paced; tracking stays paused. ' +
      '1 request waits at a connection that cannot be used now, so it is not checked: its batch says why.',
  );
});
