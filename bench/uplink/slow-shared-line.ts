import { MIB } from '../support/report';
import {
  allPreparedVerdict,
  attemptsVerdict,
  linkShareVerdict,
  progressVerdict,
  scenarioReport,
} from './run-figures';
import { sizeLine } from './run-size';
import { sendThroughLine } from './send-run';
import type { UplinkScenario } from './uplink-scenario';

/**
 * Uplink target a): three 20 MiB PDFs through one 2 Mbit/s line (an office ADSL uplink): all
 * prepared, one upload attempt each, ≥ 90 % of the link. The line needs 252 s for them. Never
 * reduced: three documents are the target itself (fewer would not share the line the way that made
 * every upload miss its deadline), so it lasts about 4 minutes, longer when it misses.
 */
const MBIT = 2;
const DOCUMENTS = 3;
const DOCUMENT_BYTES = 20 * MIB;

export const slowSharedLine: UplinkScenario = {
  name: 'slow-shared',
  async run() {
    const size = {
      documents: DOCUMENTS,
      documentBytes: DOCUMENT_BYTES,
      targetDocuments: DOCUMENTS,
      targetDocumentBytes: DOCUMENT_BYTES,
    };
    const result = await sendThroughLine({ label: 'slow-shared', mbit: MBIT, size, seed: 2201 });
    return scenarioReport(
      `Uplink a) ${DOCUMENTS} × ${DOCUMENT_BYTES / MIB} MiB through a shared ${MBIT} Mbit/s line`,
      [`${sizeLine(size, MBIT)} Never reduced: three documents sharing the line are the target itself.`],
      result,
      MBIT,
      [
        allPreparedVerdict(result),
        attemptsVerdict(result, 'upload attempts of the document that took the most', 1),
        linkShareVerdict(result, MBIT),
        progressVerdict(result),
      ],
    );
  },
};
