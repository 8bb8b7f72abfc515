import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { runCliHere } from '../../support/cli-in-process';
import type { CliResult } from '../../support/cli-process';
import { makePdfBytes, makeTempFolder, type TempFolder } from '../../support/pdf-files';

let work: TempFolder;

beforeAll(() => {
  work = makeTempFolder('desk-cli-pdf-header-');
});

afterAll(() => {
  work?.remove();
});

/** `validate`, in the test's process (cli-in-process.ts): it reads files and sends nothing. */
function validate(manifest: string): Promise<CliResult> {
  return runCliHere(['validate', manifest], { clock: new VirtualClock(), credentials: null });
}

/** A real PDF (pdf-lib writes `%PDF-1.7`) whose header names `version` instead. */
async function pdfOfVersion(version: string): Promise<Buffer> {
  const bytes = Buffer.from(await makePdfBytes(`A PDF that says it is ${version}`));
  expect(bytes.subarray(0, 8).toString('latin1')).toBe('%PDF-1.7');
  bytes.write(`%PDF-${version}`, 0, 'latin1');
  return bytes;
}

/** A manifest of one document, `contract.pdf`, with one signer. */
function manifestFor(folder: string): string {
  const path = `${folder}/manifest.csv`;
  writeFileSync(
    path,
    'document,external_reference,participant_type,role,name,email\ncontract.pdf,REF-1,signer,Employee,Anne Dupré,anne@example.com\n',
  );
  return path;
}

describe('validate: a PDF header names a version that exists (1.0 to 1.7, 2.0), as the service requires', () => {
  it.each(['1.9', '2.1', '3.0'])(
    'refuses a PDF whose header says version %s: the invalid-PDF message, exit 2',
    async (version) => {
      const folder = work.file(`v${version}`);
      mkdirSync(folder);
      writeFileSync(`${folder}/contract.pdf`, await pdfOfVersion(version));
      const result = await validate(manifestFor(folder));
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        'row 2, column A (document): "contract.pdf" is not a PDF: it does not start with the header of a PDF version that exists (%PDF-1.0 to %PDF-1.7, or %PDF-2.0)\n',
      );
      expect(result.stdout).toContain('Invalid: 1 problem. Fix it');
    },
  );

  it.each(['1.4', '2.0'])('accepts a PDF whose header says version %s', async (version) => {
    const folder = work.file(`ok${version}`);
    mkdirSync(folder);
    writeFileSync(`${folder}/contract.pdf`, await pdfOfVersion(version));
    const result = await validate(manifestFor(folder));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Valid: 1 /);
  });
});
