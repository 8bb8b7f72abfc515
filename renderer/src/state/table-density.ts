import { create } from 'zustand';

/** How the documents table shows each document: one line, or everything about it. */
export type TableDensity = 'compact' | 'detailed';

/**
 * Up to this many documents, a batch shows each in full (its size and digest, each person, the
 * whole timeline): they fit in the window. A larger batch shows one line a document, so a dozen
 * and more are seen at once, until the person chooses otherwise.
 */
export const DETAILED_UP_TO = 10;

/**
 * The height of a compact row, in CSS pixels: fixed (one line holds the thumbnail, a line of
 * text and the action buttons), and what the table reserves for each compact row not shown, so
 * measuring a row as it scrolls into view changes nothing. A row whose content needs more (its
 * actions wrapped in a narrow window) grows, and the table measures it.
 */
export const COMPACT_ROW_PX = 28;

/** The person's choice, kept while the desk is open and followed by every batch. */
export const useChosenDensity = create<{
  readonly chosen: TableDensity | undefined;
  choose(density: TableDensity): void;
}>((set) => ({
  chosen: undefined,
  choose: (density) => set({ chosen: density }),
}));

/** The density a batch of `documentCount` documents is shown in: the person's choice, else by its size. */
export function densityFor(chosen: TableDensity | undefined, documentCount: number): TableDensity {
  return chosen ?? (documentCount > DETAILED_UP_TO ? 'compact' : 'detailed');
}
