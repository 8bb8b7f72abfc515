/**
 * A report's file name comes from a batch name, which the person types: whatever they type, the
 * name saves on every file system, reads as what it is, and is never a Windows device.
 */
import { describe, expect, it } from 'vitest';
import { MAX_REPORT_STEM_BYTES, safeReportName } from '../../../main/report/report-file-name';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const stemOf = (name: string) => name.slice(0, -'.csv'.length);
/** No half of a surrogate pair anywhere in `text`. */
const wellFormed = (text: string) => !/\p{Cs}/u.test(text);

describe('a report file name', () => {
  it.each([
    ['Monday contracts.csv', 'Monday contracts.csv'],
    ['Monday', 'Monday.csv'],
    ['Monday.CSV', 'Monday.csv'],
    ['a/b\\c:d*e?f"g<h>i|j.csv', 'a_b_c_d_e_f_g_h_i_j.csv'],
    ['line\nbreak', 'line_break.csv'],
    ['line\u2028break', 'line_break.csv'],
    ['...', 'report.csv'],
    ['', 'report.csv'],
    ['  .hidden. ', 'hidden.csv'],
  ])('names %j as %j', (given, expected) => {
    expect(safeReportName(given)).toBe(expected);
  });

  it('drops bidi controls and zero-width characters, so it reads as what it is', () => {
    // Displayed as "avsc.csv.png" with the override kept.
    expect(safeReportName('a\u202Egnp.csv.csv')).toBe('agnp.csv.csv');
    const invisible = [
      '\u200B',
      '\u200C',
      '\u200D',
      '\u200E',
      '\u200F',
      '\u202A',
      '\u202B',
      '\u202C',
      '\u202D',
      '\u202E',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\uFEFF',
    ];
    for (const character of invisible) expect(safeReportName(`pay${character}roll`)).toBe('payroll.csv');
    expect(safeReportName(invisible.join(''))).toBe('report.csv');
  });

  it('keeps names Windows reserves from naming a device', () => {
    for (const reserved of ['CON', 'con', 'Prn', 'AUX', 'nul', 'COM1', 'com9', 'LPT1', 'lpt9', 'COM¹'])
      expect(safeReportName(reserved)).toBe(`_${reserved}.csv`);
    expect(safeReportName('CON.csv')).toBe('_CON.csv');
    expect(safeReportName('nul.tar')).toBe('_nul.tar.csv');
    expect(safeReportName('aux .txt')).toBe('_aux .txt.csv');
    // Only the whole name before a dot is reserved.
    expect(safeReportName('CONTRACTS')).toBe('CONTRACTS.csv');
    expect(safeReportName('COM10')).toBe('COM10.csv');
    expect(safeReportName('Console')).toBe('Console.csv');
  });

  it.each([
    ['100 CJK characters', '契'.repeat(100), 3],
    ['200 "é"', 'é'.repeat(200), 2],
    ['200 "é" written as e and a combining accent', 'e\u0301'.repeat(200), 2],
    ['200 emoji', '📄'.repeat(200), 4],
    ['300 Latin letters', 'a'.repeat(300), 1],
  ])('keeps %s within 200 bytes before ".csv", cut between characters', (_label, given, size) => {
    const name = safeReportName(given);
    expect(name.endsWith('.csv')).toBe(true);
    const stem = stemOf(name);
    expect(bytes(stem)).toBeLessThanOrEqual(MAX_REPORT_STEM_BYTES);
    // As many whole characters as fit, each intact (a lone half of a pair would be U+FFFD).
    expect(bytes(stem)).toBeGreaterThan(MAX_REPORT_STEM_BYTES - size);
    expect(stem.normalize('NFC')).toBe(stem);
    expect(stem).toBe(given.normalize('NFC').slice(0, stem.length));
    expect(Buffer.from(stem, 'utf8').toString('utf8')).toBe(stem);
    expect(wellFormed(stem)).toBe(true);
  });

  it('never cuts a surrogate pair, however the bytes fall', () => {
    for (let lead = 0; lead < 4; lead++) {
      const stem = stemOf(safeReportName(`${'a'.repeat(lead)}${'😀'.repeat(100)}`));
      expect(wellFormed(stem)).toBe(true);
      expect(bytes(stem)).toBeLessThanOrEqual(MAX_REPORT_STEM_BYTES);
      expect(bytes(stem)).toBeGreaterThan(MAX_REPORT_STEM_BYTES - 4);
    }
    // A lone half in the batch name itself is dropped.
    expect(safeReportName('a\uD83Db')).toBe('ab.csv');
  });

  it('cuts a character carrying hundreds of combining marks between code points', () => {
    const stem = stemOf(safeReportName(`Z${'\u0301'.repeat(300)}`));
    expect(bytes(stem)).toBeLessThanOrEqual(MAX_REPORT_STEM_BYTES);
    expect(stem.startsWith('Ź')).toBe(true);
  });
});
