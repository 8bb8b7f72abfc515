import { describe, expect, it } from 'vitest';
import { checkPdfFile } from '../../../main/files/pdf-check';
import { PDF_HEADER_PATTERN } from '../../../shared/service/limits';
import { CrashFileSystem } from '../../support/crash-fs';
import { originalsIn } from '../../support/memory-originals';

/** Checks `content` as if it were a file on disk, without writing one. */
async function checkBytes(content: string) {
  const memory = new CrashFileSystem();
  const file = await memory.open('/document.pdf', 'w');
  await file.write(Buffer.from(content, 'latin1'));
  await file.close();
  const { open } = originalsIn(memory);
  return checkPdfFile('/document.pdf', { open });
}

/**
 * The versions of PDF that exist: 1.0 to 1.7 (ISO 32000-1 §7.5.2, "%PDF-1.N where N is a digit
 * between 0 and 7") and 2.0 (ISO 32000-2). The service refuses a body that does not start with
 * a valid header (spec §7 invalid_pdf): the local check refuses the same files, before sending.
 */
describe('the PDF header check: only the versions that exist', () => {
  it.each(['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7', '2.0'])(
    'accepts %%PDF-%s',
    async (version) => {
      const result = await checkBytes(`%PDF-${version}\n%\u00e2\u00e3\u00cf\u00d3\n%%EOF\n`);
      expect(result.ok).toBe(true);
    },
  );

  it.each([
    ['%PDF-1.8', 'a 1.x version after 1.7'],
    ['%PDF-1.9', 'a 1.x version after 1.7'],
    ['%PDF-2.1', 'a 2.x version after 2.0'],
    ['%PDF-3.0', 'a major version that does not exist'],
    ['%PDF-0.9', 'a major version that does not exist'],
    ['%PDF-1.a', 'a version that is not a number'],
    ['%PDF-1.', 'a header cut short'],
    ['%pdf-1.7', 'a header in lower case'],
    [' %PDF-1.7', 'a header after a space: the body must start with it'],
    ['\u00ef\u00bb\u00bf%PDF-1.7', 'a header after a byte-order mark'],
  ])('refuses %j (%s) as invalid_pdf, with the message the app shows', async (header) => {
    const result = await checkBytes(`${header}\n%%EOF\n`);
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'invalid_pdf',
        message:
          'The file is not a PDF: it does not start with the header of a PDF version that exists (%PDF-1.0 to %PDF-1.7, or %PDF-2.0).',
      },
    });
  });

  it('is one rule, read from the start of the file only', () => {
    expect(PDF_HEADER_PATTERN.test('%PDF-2.0')).toBe(true);
    expect(PDF_HEADER_PATTERN.test('junk %PDF-1.7')).toBe(false);
  });
});
