/**
 * Text as a search compares it: without case, accents or the letters a keyboard may lack, so that
 * "soren" finds "Søren", "gossling" finds "Gößling", "aero" finds "Ærø" and "isik" finds "Işık".
 * German and Nordic names are also written out the way people type them without those letters:
 * "mueller" finds "Müller", "soeren" finds "Søren", "aalborg" finds "Ålborg".
 */

/**
 * Letters no Unicode decomposition takes apart (they are letters of their own, not a base letter
 * with a mark), as they are written without them.
 */
const PLAIN_LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  ø: 'o',
  æ: 'ae',
  œ: 'oe',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ħ: 'h',
  ı: 'i',
  ŀ: 'l',
  ŧ: 't',
  ŋ: 'n',
  ĸ: 'k',
  ſ: 's',
};
const PLAIN_LETTER = new RegExp(`[${Object.keys(PLAIN_LETTERS).join('')}]`, 'gu');

/** The German and Nordic way to write these letters without them: Müller as Mueller, Ålborg as Aalborg. */
const SPELLED_OUT: Readonly<Record<string, string>> = { ä: 'ae', ö: 'oe', ü: 'ue', ø: 'oe', å: 'aa' };
const SPELLED_OUT_LETTER = new RegExp(`[${Object.keys(SPELLED_OUT).join('')}]`, 'gu');

/**
 * Lower case, every mark dropped, ligatures and full-width forms taken apart, and the letters of
 * their own written plainly: "Søren Gößling" → "soren gossling". Lower case comes first: "İ"
 * lowers to "i" with a dot above, which then goes with the other marks.
 */
export function fold(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(PLAIN_LETTER, (letter) => PLAIN_LETTERS[letter] ?? letter);
}

/** `text` folded with its umlauts and Nordic letters written out: "Søren Müller" → "soeren mueller". */
function spelledOut(text: string): string {
  return fold(
    text
      .toLowerCase()
      .normalize('NFC')
      .replace(SPELLED_OUT_LETTER, (letter) => SPELLED_OUT[letter] ?? letter),
  );
}

/**
 * The ways `text` is compared: folded, and, when it differs, with its umlauts and Nordic letters
 * written out. A search matches when one of its own forms is inside one of the text's.
 */
export function searchForms(text: string): readonly string[] {
  const plain = fold(text);
  const written = spelledOut(text);
  return written === plain ? [plain] : [plain, written];
}
