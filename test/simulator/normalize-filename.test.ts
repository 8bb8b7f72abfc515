import { describe, expect, it } from 'vitest';
import { decodeFilenameHeader, normalizeFilename } from '../../simulator/normalize-filename';

const LONG_STEM = 'a'.repeat(300);

describe('normalizeFilename', () => {
  it.each<[string | undefined, string]>([
    // Examples of spec §4.2's rules: directories dropped, ASCII, unsupported characters replaced
    ['C:\\Users\\anne\\Contrat été 2026.pdf', 'Contrat_ete_2026.pdf'],
    ['../../etc/passwd', 'passwd.pdf'],
    ['report.PDF', 'report.PDF'],
    ['Straße.pdf', 'Strasse.pdf'],
    ['  ', 'document.pdf'],
    ['.pdf', 'document.pdf'],
    ['契約書.pdf', 'document.pdf'],
    ['a b  c.pdf.txt', 'a_b_c.pdf.txt.pdf'],
    // Blank or missing
    [undefined, 'document.pdf'],
    ['', 'document.pdf'],
    ['\t\n', 'document.pdf'],
    // Directory components
    ['/home/anne/contract.pdf', 'contract.pdf'],
    ['folder\\sub/contract.pdf', 'contract.pdf'],
    ['contracts/', 'document.pdf'],
    // Transliteration and diacritics
    ['Æsir Øre Œuvre.pdf', 'AEsir_Ore_OEuvre.pdf'],
    ['Łódź Þór Đorđe.pdf', 'Lodz_THor_Dorde.pdf'],
    ['Crème brûlée.pdf', 'Creme_brulee.pdf'],
    ['ﬁnal ｒｅｐｏｒｔ.pdf', 'final_report.pdf'],
    ['Müller & Söhne (Entwurf) #2.pdf', 'Muller_Sohne_Entwurf_2.pdf'],
    // Unsupported characters collapse into one underscore
    ['a   b.pdf', 'a_b.pdf'],
    ['rapport:final*v2?.pdf', 'rapport_final_v2.pdf'],
    ['emoji 🎉 party.pdf', 'emoji_party.pdf'],
    // Leading and trailing punctuation
    ['...hidden.pdf', 'hidden.pdf'],
    ['__draft__.pdf', 'draft.pdf'],
    ['-x-.pdf', 'x.pdf'],
    ['.env', 'env.pdf'],
    ['name..pdf', 'name.pdf'],
    ['name_-.PDF', 'name.PDF'],
    // Extension handling
    ['report', 'report.pdf'],
    ['report.pdf.', 'report.pdf.pdf'],
    ['report.Pdf', 'report.Pdf'],
    ['scan.jpeg', 'scan.jpeg.pdf'],
    ['pdf', 'pdf.pdf'],
    ['契約書', 'document.pdf'],
    // Length limit: 180 characters in total
    [`${LONG_STEM}.pdf`, `${'a'.repeat(176)}.pdf`],
    [LONG_STEM, `${'a'.repeat(176)}.pdf`],
    [`${'a'.repeat(175)}_bcd.pdf`, `${'a'.repeat(175)}.pdf`],
    [`${'a'.repeat(176)}.pdf`, `${'a'.repeat(176)}.pdf`],
  ])('normalizes %j to %j', (raw, expected) => {
    expect(normalizeFilename(raw)).toBe(expected);
  });

  it('always yields a short ASCII name ending in .pdf', () => {
    const samples = ['Ω≈ç√∫˜µ≤≥÷', '\u0000\u0001', 'x'.repeat(1000), '/\\/\\', 'a.PDF.pdf.PDF'];
    for (const sample of samples) {
      const name = normalizeFilename(sample);
      expect(name).toMatch(/^[A-Za-z0-9._-]+\.pdf$/i);
      expect(name.length).toBeLessThanOrEqual(180);
    }
  });
});

describe('decodeFilenameHeader', () => {
  it.each<[string | undefined, string | undefined]>([
    [undefined, undefined],
    ['plain name.pdf', 'plain name.pdf'],
    ['Contrat%20%C3%A9t%C3%A9.pdf', 'Contrat été.pdf'],
    ['100%.pdf', '100%.pdf'],
    ['bad%E9.pdf', 'bad%E9.pdf'],
  ])('reads %j as %j', (header, expected) => {
    expect(decodeFilenameHeader(header)).toBe(expected);
  });
});
