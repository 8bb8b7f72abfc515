import { MIB } from '../support/report';
import { linkShareVerdict, noSecondAttemptVerdict, progressVerdict, scenarioReport } from './run-figures';
import { sizeLine, type RunSize, type UplinkMode } from './run-size';
import { sendThroughLine } from './send-run';
import type { UplinkScenario } from './uplink-scenario';

/**
 * Uplink target b): 100 × 5 MiB through a shared line of 0.5, 2, 20 or 100 Mbit/s: ≥ 90 % of the
 * link, no upload attempted twice. One scenario per rate.
 *
 * Reduced runs (the default) keep the 5 MiB files (stall windows and socket buffers do not
 * scale with them) and send fewer of them, about 2½ minutes of line each, but always more than
 * one upload at a time could take, so uploads queue for the line as in the target.
 */
const TARGET_DOCUMENTS = 100;
const DOCUMENT_BYTES = 5 * MIB;

/** Documents of a reduced run per rate, and why that count keeps the target's point. */
const REDUCED: Readonly<Record<string, { documents: number; because: string }>> = {
  '0.5': {
    documents: 3,
    because:
      'At 0.5 Mbit/s one 5 MiB upload takes 84 s of line; 3 (252 s) are the fewest that keep uploads queueing or sharing the line beyond one or two at a time (4 or more would take 5½ minutes and more).',
  },
  '2': {
    documents: 8,
    because:
      'At 2 Mbit/s 8 uploads take 168 s of line: twice the four at a time the app sent before its link-aware upload lanes.',
  },
  '20': { documents: 72, because: 'At 20 Mbit/s 72 uploads take 151 s of line.' },
  '100': { documents: 100, because: '' },
};

function runSize(mbit: number, mode: UplinkMode): RunSize {
  const reduced = REDUCED[String(mbit)];
  const documents = mode === 'full' || !reduced ? TARGET_DOCUMENTS : reduced.documents;
  return {
    documents,
    documentBytes: DOCUMENT_BYTES,
    targetDocuments: TARGET_DOCUMENTS,
    targetDocumentBytes: DOCUMENT_BYTES,
    ...(reduced?.because ? { reducedBecause: reduced.because } : {}),
  };
}

/** The scenario of 5 MiB documents at `mbit`, named `many-<mbit>`. */
export function manyDocuments(mbit: number): UplinkScenario {
  return {
    name: `many-${mbit}`,
    async run(mode) {
      const size = runSize(mbit, mode);
      const result = await sendThroughLine({
        label: `many-${mbit}`,
        mbit,
        size,
        seed: 2202,
      });
      return scenarioReport(
        `Uplink b) ${size.documents} × ${DOCUMENT_BYTES / MIB} MiB through a shared ${mbit} Mbit/s line${
          size.documents < TARGET_DOCUMENTS
            ? ` (reduced: ${size.documents} of ${TARGET_DOCUMENTS} documents)`
            : ''
        }`,
        [sizeLine(size, mbit)],
        result,
        mbit,
        [linkShareVerdict(result, mbit), noSecondAttemptVerdict(result), progressVerdict(result)],
      );
    },
  };
}

/** The rates of target b). */
export const MANY_DOCUMENTS_MBIT: readonly number[] = [0.5, 2, 20, 100];
