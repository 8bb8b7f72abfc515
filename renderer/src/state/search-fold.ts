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
 * Typographic apostrophes and dashes, as Word and macOS write them ("L’Hôpital", "Jean‑Pierre",
 * "Marie–Claire"), and the ones a keyboard types ("l'hopital", "jean-pierre"). The acute accent
 * alone (´) is taken for an apostrophe before it decomposes into a space and a mark.
 */
const APOSTROPHE = /[\u2018\u2019\u02bc\u00b4\u0060\u2032\u02b9]/g;
const DASH = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g;

/**
 * Lower case, every mark dropped, ligatures and full-width forms taken apart, the letters of
 * their own written plainly, and one apostrophe and one dash: "Søren Gößling" → "soren
 * gossling". Lower case comes first: "İ" lowers to "i" with a dot above, which then goes with
 * the other marks.
 */
export function fold(text: string): string {
  return text
    .replace(APOSTROPHE, "'")
    .replace(DASH, '-')
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

/** The written-out spellings, each read back as its plain letter: "mueller" and "müller" → "muller". */
const WRITTEN_OUT = /ae|oe|ue|aa/g;

/**
 * `text` folded with the written-out spellings read back (ae, oe, ue, aa as a, o, u, a), so
 * that a search typing one word written out and another plainly ("juergen muller") finds
 * "Jürgen Müller", and "muller" finds a "Mueller" typed so. It may find a little more ("manul"
 * finds "Manuel"): a search shows more rather than hide the person sought.
 */
function collapsed(text: string): string {
  return fold(text).replace(WRITTEN_OUT, (pair) => pair[0] ?? '');
}

/**
 * The ways `text` is compared: folded, with its umlauts and Nordic letters written out, and with
 * written-out spellings read back (each once). A search matches when one of its own forms is
 * inside one of the text's.
 */
export function searchForms(text: string): readonly string[] {
  return [...new Set([fold(text), spelledOut(text), collapsed(text)])];
}
