import { describe, expect, it } from 'vitest';
import { normalizeFilename } from '../../../shared/service/filename';

describe('normalizeFilename (spec §4.2)', () => {
  it.each([
    // [what the user picked, what the service stores]
    [undefined, 'document.pdf'],
    ['', 'document.pdf'],
    ['   ', 'document.pdf'],
    ['contract.pdf', 'contract.pdf'],
    ['report.PDF', 'report.PDF'],
    ['C:\\Users\\anne\\Contrat été 2026.pdf', 'Contrat_ete_2026.pdf'],
    ['/home/anne/contracts/offer.pdf', 'offer.pdf'],
    ['../../etc/passwd', 'passwd.pdf'],
    ['Straße.pdf', 'Strasse.pdf'],
    ['Œuvre æther ø.pdf', 'OEuvre_aether_o.pdf'],
    ['Łódź umowa.pdf', 'Lodz_umowa.pdf'],
    ['Ångström Müller Ñandú.pdf', 'Angstrom_Muller_Nandu.pdf'],
    ['契約書.pdf', 'document.pdf'],
    ['.pdf', 'document.pdf'],
    ['a b  c.pdf.txt', 'a_b_c.pdf.txt.pdf'],
    ['notes', 'notes.pdf'],
    ['notes.', 'notes.pdf'],
    ['  padded name .pdf', 'padded_name.pdf'],
    ['..hidden.pdf', 'hidden.pdf'],
    ['invoice #12 (final)!.pdf', 'invoice_12_final.pdf'],
    ['tab\tand\nnewline.pdf', 'tab_and_newline.pdf'],
    ['emoji 😀 file.pdf', 'emoji_file.pdf'],
    ['ﬁnal ligature.pdf', 'final_ligature.pdf'],
    ['Ｆｕｌｌｗｉｄｔｈ.pdf', 'Fullwidth.pdf'],
    ['keep-dashes_and.dots.pdf', 'keep-dashes_and.dots.pdf'],
    ['folder\\sub/mixed\\name.pdf', 'name.pdf'],
  ])('%j is stored as %j', (raw, expected) => {
    expect(normalizeFilename(raw)).toBe(expected);
  });

  it('limits the name to 180 characters and keeps the .pdf extension', () => {
    const stored = normalizeFilename(`${'a'.repeat(300)}.pdf`);
    expect(stored).toHaveLength(180);
    expect(stored.endsWith('.pdf')).toBe(true);
  });

  it('appends .pdf within the 180 character limit', () => {
    const stored = normalizeFilename('b'.repeat(500));
    expect(stored).toBe(`${'b'.repeat(176)}.pdf`);
  });

  it('does not leave punctuation at the cut', () => {
    const stored = normalizeFilename(`${'c'.repeat(175)}____more.pdf`);
    expect(stored).toBe(`${'c'.repeat(175)}.pdf`);
  });

  it('is stable: a stored name normalizes to itself', () => {
    for (const raw of ['Contrat été.pdf', 'x'.repeat(400), '契約書', 'report.PDF', 'a..b.pdf']) {
      const once = normalizeFilename(raw);
      expect(normalizeFilename(once)).toBe(once);
    }
  });

  it('only ever produces safe ASCII names', () => {
    const samples = ['💥', '../..', 'ÿ'.repeat(200), 'CON', 'x/y\\z', '\u0000\u0001.pdf'];
    for (const raw of samples) {
      expect(normalizeFilename(raw)).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*\.pdf$/i);
    }
  });
});
