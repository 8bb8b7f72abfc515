import { describe, expect, it } from 'vitest';
import {
  KEY_RETENTION_HOURS_MAX,
  KEY_RETENTION_HOURS_MIN,
  readKeyRetentionHours,
} from '../../../shared/domain/key-retention';
import { createTranslator } from '../../../shared/i18n/translator';
import { parseCliArgs } from '../../../main/cli/cli-args';

/**
 * The hours a person types in a connection's "Hours the service keeps a request's key": read
 * the same way in the app's form and bounded as on the command line, a wrong entry said in the
 * person's language (before, "abc" reached main as NaN and came back as "Invalid request:
 * argument 1 (keyRetentionHours): Invalid input: expected number, received NaN").
 */
describe("a connection's key retention as typed", () => {
  it.each([
    ['', undefined],
    ['  ', undefined],
    ['24', 24],
    [' 24 ', 24],
    ['1.5', 1.5],
    ['1,5', 1.5],
    ['0.25', 0.25],
    ['8760', 8760],
  ])('"%s" is %s hours', (typed, hours) => {
    expect(readKeyRetentionHours(typed)).toEqual({ ok: true, value: hours });
  });

  it.each(['abc', '24h', '-1', '1e3', '0', '0.1', '8761', '1.000,5', 'NaN', 'Infinity'])(
    '"%s" is refused, never guessed',
    (typed) => {
      expect(readKeyRetentionHours(typed)).toEqual({ ok: false, error: 'not_hours' });
    },
  );

  it('the command line takes the same bounds', () => {
    const send = (hours: string) =>
      parseCliArgs([
        'send',
        'm.csv',
        '--base-url',
        'https://x.example',
        '--data-dir',
        'd',
        '--key-retention-hours',
        hours,
      ]);
    expect(send(String(KEY_RETENTION_HOURS_MIN))).toMatchObject({ ok: true });
    expect(send(String(KEY_RETENTION_HOURS_MAX))).toMatchObject({ ok: true });
    expect(send('0.2')).toMatchObject({ ok: false });
    expect(send('8761')).toMatchObject({ ok: false });
  });

  it('a refused entry is said in each language, with the bounds written as that language writes numbers', () => {
    const words = (language: 'en' | 'fr' | 'de') =>
      createTranslator(language).t('connections.keyRetentionInvalid', {
        min: KEY_RETENTION_HOURS_MIN,
        max: KEY_RETENTION_HOURS_MAX,
      });
    expect(words('en')).toBe(
      'Type the hours as a number from 0.25 to 8,760 (for example 24), or leave the field empty for one hour.',
    );
    expect(words('fr')).toContain('de 0,25 à 8\u202f760');
    expect(words('de')).toContain('von 0,25 bis 8.760');
  });
});
