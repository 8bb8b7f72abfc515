/**
 * The ceremony's notice says how long its link really lasts: the service's `expires_in_seconds`,
 * to the second, in the person's language ("valid for 30 sec", never "1 min" for a 30 s link).
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { HostBridge } from '../../../shared/ipc/bridge';

let expiresInSeconds = 30;

beforeEach(() => {
  vi.resetModules();
  const bridge = {
    host: 'electron',
    ceremony: { open: async () => ({ ok: true, value: { alreadyOpen: false, expiresInSeconds } }) },
  } as unknown as HostBridge;
  vi.stubGlobal('window', { desk: bridge });
});
afterEach(() => vi.unstubAllGlobals());

async function noticeAfterOpening(language: 'en' | 'fr' | 'de'): Promise<string | undefined> {
  const { useDesk } = await import('../../../renderer/src/state/store');
  const { withLanguage } = await import('../../../renderer/src/state/transitions');
  useDesk.setState((state) => withLanguage(state, language, language));
  await useDesk.getState().actions.ceremony.open('batch-1', 'doc-1');
  return useDesk.getState().notices.at(-1)?.text.replace(/\s/g, ' ');
}

it('a 30 s link is said to be valid for 30 seconds, in every language', async () => {
  expiresInSeconds = 30;
  expect(await noticeAfterOpening('en')).toBe(
    'The ceremony opened in its own window; its link is valid for 30 sec.',
  );
  expect(await noticeAfterOpening('fr')).toMatch(/son lien est valable 30 s\.$/);
  expect(await noticeAfterOpening('de')).toMatch(/ihr Link ist 30 Sek\. gültig\.$/);
});

it('a link of 15 minutes and a half says both', async () => {
  expiresInSeconds = 930;
  expect(await noticeAfterOpening('en')).toMatch(/valid for 15 min, 30 sec\.$/);
});
