import { formatMs, MIB } from '../support/report';

/**
 * How big an uplink scenario runs. At full size the slow lines take hours (100 × 5 MiB at
 * 0.5 Mbit/s needs 2.3 h of line); `npm run bench` runs them reduced, each to a few minutes, and
 * says so. `BENCH_UPLINK=full` runs every scenario at the size of its target.
 */
export type UplinkMode = 'reduced' | 'full';

/** The mode asked for by `BENCH_UPLINK` (`full`, anything else or nothing: reduced). */
export function uplinkMode(): UplinkMode {
  return process.env.BENCH_UPLINK === 'full' ? 'full' : 'reduced';
}

/** What a scenario sends in a run, and what its target names. */
export interface RunSize {
  readonly documents: number;
  readonly documentBytes: number;
  readonly targetDocuments: number;
  readonly targetDocumentBytes: number;
  /** Why this reduction keeps the target's point (printed with a reduced run). */
  readonly reducedBecause?: string;
}

/** True when the run sends less than its target names. */
export function isReduced(size: RunSize): boolean {
  return size.documents < size.targetDocuments || size.documentBytes < size.targetDocumentBytes;
}

/** "3 × 5 MiB" */
export function describeSize(documents: number, documentBytes: number): string {
  return `${documents} × ${documentBytes / MIB} MiB`;
}

/** Milliseconds `bytes` take on a line of `mbit` (10^6 bits a second). */
export function lineMs(bytes: number, mbit: number): number {
  return ((bytes * 8) / (mbit * 1e6)) * 1000;
}

/**
 * The printed line that says whether a run was reduced: what ran, what the target names, why
 * the reduction keeps its point, and how long the full size takes.
 */
export function sizeLine(size: RunSize, mbit: number): string {
  const ran = describeSize(size.documents, size.documentBytes);
  const target = describeSize(size.targetDocuments, size.targetDocumentBytes);
  if (!isReduced(size)) return `  Full size: ${ran}, as the target names.`;
  const fullMs = lineMs(size.targetDocuments * size.targetDocumentBytes, mbit);
  return `  REDUCED RUN: ${ran} of the target's ${target} (documents run ${size.documents} / ${size.targetDocuments}${
    size.documentBytes < size.targetDocumentBytes
      ? `, bytes a document ${size.documentBytes / MIB} / ${size.targetDocumentBytes / MIB} MiB`
      : ''
  }). ${size.reducedBecause ?? ''} BENCH_UPLINK=full runs the target's size (the line alone needs ${formatMs(fullMs)}).`;
}
