import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** A folder of test files that removes itself. */
export interface TempFolder {
  readonly path: string;
  file(name: string): string;
  remove(): void;
}

/** Creates an empty temporary folder for one test file. */
export function makeTempFolder(prefix = 'desk-test-'): TempFolder {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    file: (name) => join(path, name),
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}

/** The creation and modification date of every PDF made here. */
export const FIXED_PDF_DATE = new Date('2026-01-05T09:00:00Z');

/**
 * A real one-page PDF showing `title` (and `note` under it), the same bytes for the same words.
 */
export async function makePdfBytes(title: string, note?: string): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const page = document.addPage([595, 842]);
  page.drawText(title, { x: 72, y: 760, size: 18, font });
  page.drawText('Signed electronically through the signing batch desk test suite.', {
    x: 72,
    y: 730,
    size: 10,
    font,
  });
  if (note !== undefined) page.drawText(note, { x: 72, y: 710, size: 10, font });
  document.setTitle(title);
  // The same title makes the same bytes whenever it is made (pdf-lib would stamp the current
  // second): a test that means other contents says so with `note`.
  document.setCreationDate(FIXED_PDF_DATE);
  document.setModificationDate(FIXED_PDF_DATE);
  return document.save();
}

/** Writes a real PDF named `name` into `folder` and returns its path. */
export async function writePdf(folder: TempFolder, name: string, title = name): Promise<string> {
  const path = folder.file(name);
  writeFileSync(path, await makePdfBytes(title));
  return path;
}
