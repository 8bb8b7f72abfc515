import { MIB } from '../support/report';
import { allPreparedVerdict, attemptsVerdict, progressVerdict, scenarioReport } from './run-figures';
import { sizeLine, type RunSize, type UplinkMode } from './run-size';
import { sendThroughLine } from './send-run';
import type { UplinkScenario } from './uplink-scenario';

/**
 * Uplink target c), first half: one 50 MiB PDF at 0.5 Mbit/s (about 14 minutes of line) goes in one
 * upload attempt.
 */
export const LONG_UPLOAD_MBIT = 0.5;
const TARGET_BYTES = 50 * MIB;
const REDUCED_BYTES = 10 * MIB;

/**
 * One document cannot be fewer, so a reduced run sends a smaller file on the same line: 10 MiB
 * still outlasts the size-based deadline the app had before uploads were judged on their progress,
 * and is nearly twice what the system's socket buffers took of one upload here (5.6 MiB, Send-Q and
 * Recv-Q).
 */
export function longUploadSize(mode: UplinkMode): RunSize {
  return {
    documents: 1,
    documentBytes: mode === 'full' ? TARGET_BYTES : REDUCED_BYTES,
    targetDocuments: 1,
    targetDocumentBytes: TARGET_BYTES,
    reducedBecause:
      "One document cannot be fewer, so the file is smaller on the same line: 10 MiB takes 168 s at 0.5 Mbit/s, longer than the size-based deadline the app had before uploads were judged on their progress (60 s + 10 MiB ÷ 128 KiB/s = 140 s), and nearly twice what the system's socket buffers took of one upload here (5.6 MiB).",
  };
}

export const longUpload: UplinkScenario = {
  name: 'long-upload',
  async run(mode) {
    const size = longUploadSize(mode);
    const result = await sendThroughLine({ label: 'long-upload', mbit: LONG_UPLOAD_MBIT, size, seed: 2203 });
    return scenarioReport(
      `Uplink c) one ${size.documentBytes / MIB} MiB PDF at ${LONG_UPLOAD_MBIT} Mbit/s${
        size.documentBytes < TARGET_BYTES
          ? ` (reduced: ${size.documentBytes / MIB} of ${TARGET_BYTES / MIB} MiB)`
          : ''
      }`,
      [sizeLine(size, LONG_UPLOAD_MBIT)],
      result,
      LONG_UPLOAD_MBIT,
      [allPreparedVerdict(result), attemptsVerdict(result, 'upload attempts', 1), progressVerdict(result)],
    );
  },
};
