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

/** The bytes of a real one-page PDF, made with pdf-lib, whose text is `title`. */
export async function makePdfBytes(title: string): Promise<Uint8Array> {
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
  document.setTitle(title);
  return document.save();
}

/** Writes a real PDF named `name` into `folder` and returns its path. */
export async function writePdf(folder: TempFolder, name: string, title = name): Promise<string> {
  const path = folder.file(name);
  writeFileSync(path, await makePdfBytes(title));
  return path;
}
