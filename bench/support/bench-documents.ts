import { observer, signer } from '../../test/support/batch-harness';
import type { TempFolder } from '../../test/support/pdf-files';
import type { BenchDocument } from './batch-setup';
import { makePaddedPdfTemplate, writePaddedPdf } from './pdf-fixtures';

/**
 * The sending benchmarks' documents: `count` PDFs of exactly `sizeBytes` in `folder`, each with
 * its own bytes (see `writePaddedPdf`), a reference `<referencePrefix>-<n>`, one signer at
 * creation and one observer added after it.
 */
export async function writeBenchDocuments(
  folder: TempFolder,
  options: {
    readonly count: number;
    readonly sizeBytes: number;
    readonly title: string;
    readonly referencePrefix: string;
  },
): Promise<BenchDocument[]> {
  const template = await makePaddedPdfTemplate(options.sizeBytes, options.title);
  const documents: BenchDocument[] = [];
  for (let index = 1; index <= options.count; index += 1) {
    const path = folder.file(`contract-${String(index).padStart(3, '0')}.pdf`);
    await writePaddedPdf(path, template);
    documents.push({
      path,
      externalReference: `${options.referencePrefix}-${index}`,
      recipients: [signer(index)],
      extraParticipants: [observer(index)],
    });
  }
  return documents;
}
