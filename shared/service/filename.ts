import { DEFAULT_FILENAME, MAX_FILENAME_LENGTH } from './limits';

/**
 * Letters that Unicode decomposition does not reduce to ASCII, mapped to their usual
 * transliteration so that "Straße" becomes "Strasse" rather than "Stra_e".
 */
const TRANSLITERATIONS: Readonly<Record<string, string>> = {
  ß: 'ss',
  Æ: 'AE',
  æ: 'ae',
  Ø: 'O',
  ø: 'o',
  Œ: 'OE',
  œ: 'oe',
  Đ: 'D',
  đ: 'd',
  Ł: 'L',
  ł: 'l',
  Þ: 'TH',
  þ: 'th',
};

const EDGE_PUNCTUATION = /^[._-]+|[._-]+$/g;
const TRAILING_PUNCTUATION = /[._-]+$/;
const PDF_EXTENSION = /\.pdf$/i;
const FALLBACK_STEM = 'document';

function toAscii(name: string): string {
  const transliterated = Array.from(name, (char) => TRANSLITERATIONS[char] ?? char).join('');
  return transliterated.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
}

/**
 * Predicts the filename the service stores for an upload (spec §4.2): directory components
 * removed, converted to ASCII, unsupported characters replaced, at most 180 characters, and
 * `.pdf` appended when missing. Pure and total: every input yields a usable name.
 */
export function normalizeFilename(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return DEFAULT_FILENAME;
  const baseName = raw.split(/[/\\]/).pop() ?? '';
  const cleaned = toAscii(baseName).replace(/[^A-Za-z0-9._-]+/g, '_');
  // The extension is split off before trimming so that ".pdf" or "契約書.pdf" keep a real stem.
  const hasExtension = PDF_EXTENSION.test(cleaned);
  const extension = hasExtension ? cleaned.slice(-4) : '.pdf';
  const stem = (hasExtension ? cleaned.slice(0, -4) : cleaned).replace(EDGE_PUNCTUATION, '');
  const limitedStem = stem.slice(0, MAX_FILENAME_LENGTH - extension.length).replace(TRAILING_PUNCTUATION, '');
  return (limitedStem === '' ? FALLBACK_STEM : limitedStem) + extension;
}
