import { describe, expect, it, vi } from 'vitest';
import {
  describeState,
  formatBytes,
  formatDateTime,
  formatDuration,
  formatShortDateTime,
} from '../../renderer/src/format';
import { createTranslator } from '../../shared/i18n/translator';

const { t } = createTranslator('en');

const tracking = (status: string, final = false) => ({
  status,
  evidenceReady: final,
  readAt: '2026-11-23T10:00:00Z',
  final,
});

describe('the words for a document state', () => {
  it('words the class main computed, never deciding it from the phase or status', () => {
    // A document main classifies as gone reads so whatever its phase and last status say.
    expect(describeState({ class: 'gone', phase: 'prepared', tracking: tracking('in_progress') }, t)).toBe(
      'No longer at the service',
    );
    expect(
      describeState({ class: 'completed', phase: 'prepared', tracking: tracking('completed', true) }, t),
    ).toBe('Completed — evidence ready');
    expect(describeState({ class: 'needs_check', phase: 'needs_check' }, t)).toBe('Needs your check');
    expect(describeState({ class: 'not_sent', phase: 'draft' }, t)).toBe('Not sent');
  });

  it('adds the detail a user reads: the step while sending, the service status while waiting', () => {
    expect(describeState({ class: 'sending', phase: 'queued' }, t, 'uploading')).toBe('Uploading');
    expect(describeState({ class: 'waiting', phase: 'prepared', tracking: tracking('completed') }, t)).toBe(
      'Completed — evidence pending',
    );
    expect(describeState({ class: 'waiting', phase: 'prepared', tracking: tracking('in_progress') }, t)).toBe(
      'Signing in progress',
    );
    expect(describeState({ class: 'waiting', phase: 'prepared', tracking: tracking('on_hold') }, t)).toBe(
      'on_hold',
    );
    expect(describeState({ class: 'waiting', phase: 'prepared' }, t)).toBe('Waiting for signatures');
  });

  it("names a request that ended, or whose status the app does not know, by the service's own word", () => {
    const ended = { class: 'ended', phase: 'prepared', tracking: tracking('declined', true) } as const;
    const unknown = { class: 'unknown_status', phase: 'prepared', tracking: tracking('on_hold') } as const;
    expect(describeState(ended, t)).toBe('Ended: declined');
    expect(describeState(unknown, t)).toBe('Status not recognized: on_hold — still checked, less often');
    // A participant refused after a prepared request was linked: its request still waits for signatures.
    expect(describeState({ class: 'waiting', phase: 'failed', tracking: tracking('in_progress') }, t)).toBe(
      'Signing in progress',
    );
    expect(describeState(ended, createTranslator('fr').t)).toBe('Terminé\u00a0: declined');
    expect(describeState(unknown, createTranslator('de').t)).toBe(
      'Status nicht erkannt: on_hold — wird weiterhin geprüft, aber seltener',
    );
  });
});

describe('sizes, numbers and dates', () => {
  it('gives sizes in the binary units the service states its limits in (KiB, MiB), in the locale', () => {
    expect(formatBytes(512, 'en')).toBe('512\u00a0B');
    expect(formatBytes(1536, 'en')).toBe('1.5\u00a0KiB');
    expect(formatBytes(50 * 1024 * 1024, 'en')).toBe('50\u00a0MiB');
    expect(formatBytes(2.5 * 1024 * 1024, 'de-DE')).toBe('2,5\u00a0MiB');
    expect(formatBytes(2.5 * 1024 * 1024, 'fr-FR')).toBe('2,5\u00a0Mio');
  });

  it("writes dates in the desk's locale, not the browser's", () => {
    const iso = '2026-11-23T14:05:00Z';
    expect(formatDateTime(iso, 'de-DE')).toBe(
      new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)),
    );
    expect(formatDateTime(iso, 'de-DE')).not.toBe(formatDateTime(iso, 'en-US'));
    expect(formatDateTime(undefined, 'en')).toBe('—');
  });

  it('makes each formatter once per locale, not once per row: a scrolling table formats a date in every row it shows', () => {
    const rows = Array.from(
      { length: 50 },
      (_, index) => `2026-11-${String((index % 28) + 1).padStart(2, '0')}T14:05:00Z`,
    );
    const short = (locale: string) =>
      rows.map((iso) =>
        new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'short' }).format(new Date(iso)),
      );
    const expected = { fr: short('fr-FR'), de: short('de-DE') };
    const dates = vi.spyOn(Intl, 'DateTimeFormat');
    const numbers = vi.spyOn(Intl, 'NumberFormat');
    try {
      const shown = {
        fr: rows.map((iso) => formatShortDateTime(iso, 'fr-FR')),
        de: rows.map((iso) => formatShortDateTime(iso, 'de-DE')),
      };
      const sizes = rows.map((_, index) => formatBytes(1_000_000 + index * 4_096, 'fr-FR'));
      // Each row still shows its own date, in the desk's locale…
      expect(shown).toEqual(expected);
      expect(sizes[0]).toBe('976,6\u00a0Kio');
      // …from one formatter a locale (and one number format a precision), made at most once.
      expect(dates.mock.calls.length).toBeLessThanOrEqual(2);
      expect(numbers.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      dates.mockRestore();
      numbers.mockRestore();
    }
  });
});

describe('a length of time', () => {
  // Spaces as a person reads them (the locale may put a non-breaking one between number and unit).
  const plain = (text: string) => text.replace(/\s/g, ' ');

  it('is said to the second, in the locale’s own units: a 30 s link is not "1 min", a 20 s token not "0 min"', () => {
    expect([30, 20, 60, 90, 900, 3_661].map((seconds) => plain(formatDuration(seconds, 'en')))).toEqual([
      '30 sec',
      '20 sec',
      '1 min',
      '1 min, 30 sec',
      '15 min',
      '1 hr, 1 min, 1 sec',
    ]);
    expect(plain(formatDuration(30, 'fr'))).toBe('30 s');
    expect(plain(formatDuration(90, 'fr'))).toBe('1 min et 30 s');
    expect(plain(formatDuration(30, 'de'))).toBe('30 Sek.');
  });
});
