import { documentClassSchema, type DocumentClass } from './document-class';

/**
 * How many documents are in each group: the one count behind every number the desk shows of a
 * batch (its progress line, the filters, "N documents will continue", the glance, the batch
 * list). Each is counted from main's classification (`main/domain/document-class.ts`), here
 * and nowhere else, so two numbers of one state can never disagree.
 */
export type ClassCounts = Readonly<Record<DocumentClass, number>>;

/** Every group, in the order a batch moves through them (the filters list them so). */
export const DOCUMENT_CLASSES: readonly DocumentClass[] = [
  'not_sent',
  'sending',
  'waiting',
  'unknown_status',
  'completed',
  'ended',
  'needs_check',
  'failed',
  'gone',
];

/**
 * Groups of documents sent all the way: their request was prepared at their service, whatever
 * came of it since. "N of M documents sent" counts these, and nothing else.
 */
export const SENT_CLASSES: ReadonlySet<DocumentClass> = new Set<DocumentClass>([
  'waiting',
  'unknown_status',
  'completed',
  'ended',
]);

/** Zero in every group. */
export function noDocuments(): Record<DocumentClass, number> {
  return Object.fromEntries(documentClassSchema.options.map((group) => [group, 0])) as Record<
    DocumentClass,
    number
  >;
}

/** How many of `items` are in each group, `classOf` giving an item's group. */
export function countByClass<T>(
  items: Iterable<T>,
  classOf: (item: T) => DocumentClass,
): Record<DocumentClass, number> {
  const counts = noDocuments();
  for (const item of items) counts[classOf(item)] += 1;
  return counts;
}

/** Documents sent all the way (see `SENT_CLASSES`). */
export function sentCount(counts: ClassCounts): number {
  let sent = 0;
  for (const group of SENT_CLASSES) sent += counts[group];
  return sent;
}

/** Every document counted. */
export function totalCount(counts: ClassCounts): number {
  return DOCUMENT_CLASSES.reduce((sum, group) => sum + counts[group], 0);
}
