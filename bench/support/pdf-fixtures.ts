import { randomFillSync } from 'node:crypto';
import { open } from 'node:fs/promises';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/**
 * A real PDF (made with pdf-lib) split around one unreferenced filler stream, so files of an
 * exact size can be written by streaming fresh random bytes into the filler: every file is a
 * valid PDF with a correct cross-reference table, and every file has its own SHA-256 (the
 * app's blob store is content-addressed, so identical files would be stored once).
 */
export interface PaddedPdfTemplate {
  readonly sizeBytes: number;
  /** Everything up to the first byte of the filler stream's data. */
  readonly prefix: Uint8Array;
  readonly fillerBytes: number;
  /** Everything after the filler stream's data. */
  readonly suffix: Uint8Array;
}

const FILLER_KEY = '/BenchFiller true';
const WRITE_CHUNK_BYTES = 1024 * 1024;

async function buildPdf(fillerBytes: number, title: string): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const page = document.addPage([595, 842]);
  page.drawText(title, { x: 72, y: 760, size: 18, font });
  page.drawText('Benchmark contract sent through the signing batch desk.', { x: 72, y: 730, size: 10, font });
  document.setTitle(title);
  const filler = document.context.stream(new Uint8Array(fillerBytes), { BenchFiller: true });
  document.context.register(filler);
  return document.save({ useObjectStreams: false });
}

/** Builds a template whose files are exactly `sizeBytes` long. */
export async function makePaddedPdfTemplate(sizeBytes: number, title: string): Promise<PaddedPdfTemplate> {
  // The filler's /Length and the startxref offset change width with the filler: converge on it.
  let fillerBytes = sizeBytes - (await buildPdf(0, title)).length;
  let bytes = await buildPdf(Math.max(0, fillerBytes), title);
  for (let attempt = 0; attempt < 4 && bytes.length !== sizeBytes; attempt += 1) {
    fillerBytes += sizeBytes - bytes.length;
    if (fillerBytes <= 0) throw new RangeError(`a padded PDF cannot be as small as ${sizeBytes} bytes`);
    bytes = await buildPdf(fillerBytes, title);
  }
  if (bytes.length !== sizeBytes) {
    throw new Error(`padded PDF is ${bytes.length} bytes, wanted ${sizeBytes}`);
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const key = text.indexOf(FILLER_KEY);
  const streamKeyword = text.indexOf('stream\n', key);
  if (key < 0 || streamKeyword < 0) throw new Error('filler stream not found in the padded PDF');
  const dataStart = streamKeyword + 'stream\n'.length;
  return {
    sizeBytes,
    prefix: bytes.slice(0, dataStart),
    fillerBytes,
    suffix: bytes.slice(dataStart + fillerBytes),
  };
}

/** Writes one file of the template to `path`, real bytes throughout (never a sparse file). */
export async function writePaddedPdf(path: string, template: PaddedPdfTemplate): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await handle.write(template.prefix);
    const chunk = Buffer.allocUnsafe(WRITE_CHUNK_BYTES);
    for (let left = template.fillerBytes; left > 0; left -= WRITE_CHUNK_BYTES) {
      const part = chunk.subarray(0, Math.min(left, WRITE_CHUNK_BYTES));
      randomFillSync(part);
      await handle.write(part);
    }
    await handle.write(template.suffix);
  } finally {
    await handle.close();
  }
}
