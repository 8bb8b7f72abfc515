import { formatMiB, formatMs, MIB } from '../support/report';
import { allPreparedVerdict, attemptsVerdict, progressVerdict, scenarioReport } from './run-figures';
import { sizeLine } from './run-size';
import { sendThroughLine } from './send-run';
import { LONG_UPLOAD_MBIT, longUploadSize } from './long-upload';
import type { UplinkScenario } from './uplink-scenario';

/**
 * Uplink target c), second half: the line of the long upload stalls for one minute mid-upload
 * (`sim.uplink.stall`, every connection open and unread, then the line goes on): at most one retry.
 * The stall starts once a quarter of the file is at the service, so most of it has yet to leave the
 * app even when the system's buffers hold megabytes of it.
 */
const STALL_MS = 60_000;
const STALL_AFTER_SHARE = 0.25;

export const stalledLine: UplinkScenario = {
  name: 'stall',
  async run(mode) {
    const size = longUploadSize(mode);
    let stalled: { atMs: number; receivedBytes: number } | undefined;
    const result = await sendThroughLine({
      label: 'stall',
      mbit: LONG_UPLOAD_MBIT,
      size,
      seed: 2204,
      lineLostMs: STALL_MS,
      onTick: ({ sim, elapsedMs }) => {
        const receivedBytes = sim.uplink.receivedBytes();
        if (stalled || receivedBytes < STALL_AFTER_SHARE * size.documentBytes) return;
        sim.uplink.stall(STALL_MS);
        stalled = { atMs: elapsedMs, receivedBytes };
      },
    });
    return scenarioReport(
      `Uplink c) a one-minute stall of the line during one ${size.documentBytes / MIB} MiB upload at ${LONG_UPLOAD_MBIT} Mbit/s${
        size.documentBytes < size.targetDocumentBytes
          ? ` (reduced: ${size.documentBytes / MIB} of ${size.targetDocumentBytes / MIB} MiB)`
          : ''
      }`,
      [
        sizeLine(size, LONG_UPLOAD_MBIT),
        stalled
          ? `  The line stalled for ${formatMs(STALL_MS)} at ${formatMs(stalled.atMs)}, with ${formatMiB(stalled.receivedBytes)} at the service (a quarter of the file).`
          : '  The line never stalled: a quarter of the file never reached the service.',
      ],
      result,
      LONG_UPLOAD_MBIT,
      [
        allPreparedVerdict(result),
        attemptsVerdict(result, 'upload attempts (the first and its retries)', 2),
        progressVerdict(result),
      ],
    );
  },
};
