/**
 * Warnings look like warnings: success (green) only for what went as asked. A send that left a
 * document needing the person's check, or a manifest change that was not applied, is a warning,
 * in amber, and stays until dismissed.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HostBridge } from '../../../shared/ipc/bridge';
import type { ManifestImport } from '../../../shared/ipc/views';
import { sentSummaryTone } from '../../../renderer/src/screens/review-dialog';

describe('the summary of a send', () => {
  it('is good news only when every document went; a document that needs a check or failed makes it a warning', () => {
    expect(sentSummaryTone({ failed: 0, needsCheck: 0 })).toBe('banner-success');
    expect(sentSummaryTone({ failed: 0, needsCheck: 1 })).toBe('banner-warning');
    expect(sentSummaryTone({ failed: 2, needsCheck: 0 })).toBe('banner-warning');
  });
});

describe('a manifest change that was not applied', () => {
  beforeEach(() => {
    vi.resetModules();
    const imported: ManifestImport = {
      added: 0,
      updated: 0,
      unchanged: 2,
      rejected: [],
      lockedChanges: ['HR-7'],
    } as unknown as ManifestImport;
    const bridge = {
      host: 'electron',
      manifest: { import: async () => ({ ok: true, value: imported }) },
      batches: { get: async () => ({ ok: false, error: { code: 'batch_not_found', message: 'gone' } }) },
    } as unknown as HostBridge;
    vi.stubGlobal('window', { desk: bridge });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('is a warning, not information', async () => {
    const { useDesk } = await import('../../../renderer/src/state/store');
    await useDesk.getState().actions.manifest.import('batch-1', '/m.csv');
    const locked = useDesk
      .getState()
      .notices.find((notice) => notice.text.startsWith('HR-7 was already sent'));
    expect(locked?.kind).toBe('warning');
  });
});

describe('the page’s styles', () => {
  // Every stylesheet of the page, in the order main.tsx imports them.
  const css = ['styles', 'dialogs', 'documents', 'batch']
    .map((name) => readFileSync(`renderer/src/${name}.css`, 'utf8'))
    .join('\n');
  const rule = (selector: string) => new RegExp(`\\${selector} \\{([^}]*)\\}`).exec(css)?.[1] ?? '';

  it('give a warning notice and a warning summary the amber edge, never the success green', () => {
    for (const selector of ['.notice-warning', '.banner-warning']) {
      expect(rule(selector), selector).toContain('var(--warn)');
      expect(rule(selector), selector).not.toContain('var(--ok)');
    }
    // Defined in both themes.
    expect(css.match(/--warn: #[0-9a-f]{6};/g)).toHaveLength(2);
  });
});
