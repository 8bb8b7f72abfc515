import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { documentClassSchema } from '../../shared/domain/document-class';
import { countByClass, sentCount } from '../../shared/domain/document-counts';
import type { BatchDetail, EngineStateView } from '../../shared/ipc/views';
import { createTranslator } from '../../shared/i18n/translator';
import { BatchScreen } from '../../renderer/src/screens/batch-screen';
import type { DeskStore } from '../../renderer/src/state/store-shape';
import { initialState } from '../../renderer/src/state/transitions';
import { documentIn, draw, elementAt, textOf } from './support/static-page';

/**
 * "12 of 30 documents sent", "Waiting (8) / Sending (22)" and "22 documents will continue" once
 * told three stories of one state. Drawn from generated batches, the batch screen's progress
 * line, its filters, its paused banner and its glance all say the batch's one count.
 */
// A page drawn on the server side reads a store's first state: the screen reads this one instead.
const desk = vi.hoisted(() => ({ state: undefined as unknown }));
vi.mock('../../renderer/src/state/store', () => {
  const useDesk = (selector: (state: unknown) => unknown) => selector(desk.state);
  useDesk.getState = () => desk.state;
  return { useDesk };
});

const number = (text: string | undefined) => Number((text ?? 'NaN').replace(/,/g, ''));

/** The batch screen of `detail`, in English, and the numbers it shows where a person reads them. */
function numbersShown(detail: BatchDetail) {
  desk.state = {
    ...initialState,
    translator: createTranslator('en'),
    details: { [detail.id]: detail },
    // Nothing is pressed here: every action is one that does nothing.
    actions: new Proxy({}, { get: () => new Proxy({}, { get: () => () => undefined }) }),
  } satisfies Omit<DeskStore, 'actions' | 'keychainWaiting' | 'ceremonyAttempt'> & { actions: object };
  const html = draw(<BatchScreen batchId={detail.id} />);
  const progress = textOf(elementAt(html, /<label for="batch-progress">/) ?? '');
  const filters = Object.fromEntries(
    [...html.matchAll(/<label class="count-filter[^"]*">([\s\S]*?)<\/label>/g)].map(([, inner = '']) => [
      /value="([^"]+)"/.exec(inner)?.[1],
      number(/(\d[\d,]*)$/.exec(textOf(inner))?.[1]),
    ]),
  );
  const text = textOf(html);
  const chart = /role="img" aria-labelledby="([^"]+)"/.exec(html);
  return {
    progress: /^(\d[\d,]*) of (\d[\d,]*) documents? sent$/.exec(progress)?.slice(1).map(number),
    filters,
    willContinue: /Sending is paused; (\d[\d,]*) documents? will continue/.exec(text)?.[1],
    key: /Sent: (\d[\d,]*) Signed: (\d[\d,]*)/.exec(text)?.slice(1).map(number),
    summary: chart
      ? /(\d[\d,]*) sent and (\d[\d,]*) signed of (\d[\d,]*) documents?/.exec(text)?.slice(1).map(number)
      : undefined,
  };
}

describe('one count: the progress line, the filters, "will continue" and the glance agree', () => {
  it('on generated batches, in every state a sending can be left in', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...documentClassSchema.options), { minLength: 1, maxLength: 300 }),
        fc.constantFrom<EngineStateView['state']>('idle', 'running', 'paused', 'finished', 'stopped'),
        (classes, engineState) => {
          const documents = classes.map((documentClass, index) => documentIn(String(index), documentClass));
          const counts = countByClass(documents, (document) => document.class);
          const detail: BatchDetail = {
            id: 'b1',
            name: 'Generated',
            createdAt: '2026-12-01T08:00:00.000Z',
            updatedAt: '2026-12-01T08:00:00.000Z',
            documentCount: documents.length,
            counts,
            engine: { state: engineState },
            defaults: { defaultRecipients: [] },
            documents,
          };
          const shown = numbersShown(detail);
          const sent = sentCount(counts);

          expect(shown.progress).toEqual([sent, documents.length]);
          const expected = Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0));
          expect(shown.filters).toEqual({ all: documents.length, ...expected });
          // "N documents will continue": those on their way, as the "Sending" filter counts them.
          expect(shown.willContinue === undefined ? undefined : number(shown.willContinue)).toEqual(
            engineState === 'paused' && counts.sending > 0 ? shown.filters.sending : undefined,
          );
          if (sent === 0) {
            expect(shown.key).toBeUndefined();
            expect(shown.summary).toBeUndefined();
          } else {
            expect(shown.key).toEqual([shown.progress?.[0], shown.filters.completed ?? 0]);
            expect(shown.summary).toEqual([
              shown.progress?.[0],
              shown.filters.completed ?? 0,
              documents.length,
            ]);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
