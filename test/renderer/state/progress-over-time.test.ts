import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countByClass, sentCount } from '../../../shared/domain/document-counts';
import { documentClassSchema } from '../../../shared/domain/document-class';
import { progressOverTime } from '../../../renderer/src/state/progress-over-time';
import { documentIn } from '../support/static-page';

const HOUR = 3_600_000;
/** Noon (UTC) of a day of December 2026: the same local day in every time zone within ±11 hours. */
const noon = (day: number, hours = 0) => new Date(Date.UTC(2026, 11, day, 12) + hours * HOUR).toISOString();

describe('progressOverTime: sent and signed over time, from what main reports of each document', () => {
  it('counts each day a document was sent (prepared at its service) and signed (finalized), with running totals', () => {
    const documents = [
      documentIn('1', 'waiting', { preparedAt: noon(1) }),
      documentIn('2', 'completed', {
        preparedAt: noon(1),
        tracking: {
          status: 'completed',
          evidenceReady: true,
          finalizedAt: noon(2),
          readAt: noon(2),
          final: true,
        },
      }),
      documentIn('3', 'completed', {
        preparedAt: noon(2),
        tracking: {
          status: 'completed',
          evidenceReady: true,
          finalizedAt: noon(4),
          readAt: noon(4),
          final: true,
        },
      }),
      // Ended, or in a status the app does not know: sent all the way, never signed.
      documentIn('4', 'ended', { preparedAt: noon(2) }),
      documentIn('5', 'unknown_status', { preparedAt: noon(4) }),
      // Not at the service, or not there yet: not on the chart.
      documentIn('6', 'not_sent'),
      documentIn('7', 'sending'),
      documentIn('8', 'failed'),
      documentIn('9', 'needs_check'),
      documentIn('10', 'gone', { preparedAt: noon(1) }),
    ];
    const { step, points } = progressOverTime(documents);
    expect(step).toBe('day');
    expect(
      points.map(({ sent, signed, sentSoFar, signedSoFar }) => [sent, signed, sentSoFar, signedSoFar]),
    ).toEqual([
      [2, 0, 2, 0],
      [2, 1, 4, 1],
      // Day 3: nothing happened, no point.
      [1, 1, 5, 2],
    ]);
    expect(points.map((point) => new Date(point.at).getDate())).toEqual([1, 2, 4]);
    for (const point of points)
      expect(new Date(point.until).getDate()).toBe(new Date(point.at).getDate() + 1);
  });

  it('goes hour by hour when everything happened within two days', () => {
    const documents = [
      documentIn('1', 'waiting', { preparedAt: noon(1) }),
      documentIn('2', 'waiting', { preparedAt: noon(1, 0.5) }),
      documentIn('3', 'completed', {
        preparedAt: noon(1, 1),
        tracking: {
          status: 'completed',
          evidenceReady: true,
          finalizedAt: noon(1, 5),
          readAt: noon(1, 5),
          final: true,
        },
      }),
    ];
    const { step, points } = progressOverTime(documents);
    expect(step).toBe('hour');
    expect(points.map(({ sent, signed }) => [sent, signed])).toEqual([
      [2, 0],
      [1, 0],
      [0, 1],
    ]);
    expect(points.map((point) => point.until - point.at)).toEqual([HOUR, HOUR, HOUR]);
  });

  it('has no point before anything is sent', () => {
    expect(progressOverTime([documentIn('1', 'not_sent'), documentIn('2', 'sending')]).points).toEqual([]);
  });

  it('ends on the batch’s own count: every document counted as sent and as signed is on the chart, times or not', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            documentClass: fc.constantFrom(...documentClassSchema.options),
            day: fc.integer({ min: 1, max: 28 }),
            withTimes: fc.boolean(),
          }),
          { maxLength: 60 },
        ),
        (drawn) => {
          const documents = drawn.map(({ documentClass, day, withTimes }, index) => {
            const document = documentIn(String(index), documentClass, { updatedAt: noon(day) });
            if (withTimes) return document;
            // Main knew no time of its preparation (linked, never read): its last change stands for it.
            const { preparedAt: _prepared, tracking: _tracking, ...timeless } = document;
            return timeless;
          });
          const counts = countByClass(documents, (document) => document.class);
          const last = progressOverTime(documents).points.at(-1);
          expect(last?.sentSoFar ?? 0).toBe(sentCount(counts));
          expect(last?.signedSoFar ?? 0).toBe(counts.completed);
        },
      ),
    );
  });
});
