import { describe, expect, it, vi } from 'vitest';
import { countByClass, noDocuments } from '../../shared/domain/document-counts';
import type { Language } from '../../shared/i18n/languages';
import { createTranslator, type Translator } from '../../shared/i18n/translator';
import { CountFilters } from '../../renderer/src/components/count-filters';
import { ProgressChart } from '../../renderer/src/components/progress-chart';
import { documentIn, draw, elementAt, textById, textOf } from './support/static-page';

/**
 * The batch at a glance as a person and a screen reader meet it: the counts as a group of radio
 * buttons, each named by its group and count; the chart as an image named by a summary of its
 * numbers, with its figures as a table; in English, French and German.
 */
// Drawn on the server side, a page reads the store's first state: the language is given here instead.
const speaking = vi.hoisted(() => ({ translator: undefined as Translator | undefined }));
vi.mock('../../renderer/src/i18n', () => ({
  useT: () => speaking.translator!.t,
  useTranslator: () => speaking.translator!,
}));

function speak(language: Language): void {
  speaking.translator = createTranslator(language);
}

/** Each radio button of the filters: its value, its name (its label's text), whether it is chosen. */
function radiosOf(html: string): { value: string; name: string; checked: boolean }[] {
  return [...html.matchAll(/<label class="count-filter[^"]*">([\s\S]*?)<\/label>/g)].map(
    ([, inner = '']) => ({
      value: /value="([^"]+)"/.exec(inner)?.[1] ?? '',
      name: textOf(inner),
      checked: /<input[^>]*checked=""/.test(inner),
    }),
  );
}

describe('the counts as filters', () => {
  const counts = { ...noDocuments(), not_sent: 2_012, waiting: 12, completed: 11, failed: 1 };

  it('is a radio group named "Show": each group with a document, named by its words and count, and All', () => {
    speak('en');
    const html = draw(<CountFilters counts={counts} total={2_036} value="all" onChange={() => undefined} />);
    expect(html).toMatch(/^<fieldset class="count-filters"><legend>Show<\/legend>/);
    expect(radiosOf(html)).toEqual([
      { value: 'all', name: 'All 2,036', checked: true },
      { value: 'not_sent', name: 'Not sent 2,012', checked: false },
      { value: 'waiting', name: 'Waiting for signatures 12', checked: false },
      { value: 'completed', name: 'Completed 11', checked: false },
      { value: 'failed', name: 'Failed 1', checked: false },
    ]);
    // One group: arrow keys move between them; a page never holds two with the same name.
    const names = [...html.matchAll(/<input[^>]*name="([^"]+)"/g)].map(([, name]) => name);
    expect(new Set(names).size).toBe(1);
    expect(html.match(/type="radio"/g)).toHaveLength(5);
  });

  it('keeps the chosen group even when it has no document left, so the focus never falls off it', () => {
    speak('en');
    const html = draw(
      <CountFilters counts={counts} total={2_036} value="needs_check" onChange={() => undefined} />,
    );
    expect(radiosOf(html).find((radio) => radio.checked)).toEqual({
      value: 'needs_check',
      name: 'Needs your check 0',
      checked: true,
    });
  });

  it('speaks French and German, with their numbers', () => {
    speak('fr');
    expect(
      radiosOf(draw(<CountFilters counts={counts} total={2_036} value="all" onChange={() => undefined} />))
        .map((radio) => radio.name)
        .slice(0, 3),
    ).toEqual(['Tous 2 036', 'Non envoyés 2 012', 'En attente de signatures 12']);
    expect(
      draw(<CountFilters counts={counts} total={2_036} value="all" onChange={() => undefined} />),
    ).toContain('<legend>Afficher</legend>');
    speak('de');
    expect(
      radiosOf(draw(<CountFilters counts={counts} total={2_036} value="all" onChange={() => undefined} />))
        .map((radio) => radio.name)
        .slice(0, 2),
    ).toEqual(['Alle 2.036', 'Nicht gesendet 2.012']);
  });
});

describe('the chart of sent and signed over time', () => {
  /** Noon (UTC) of a day of December 2026: the same local day in every time zone within ±11 hours. */
  const noon = (day: number) => new Date(Date.UTC(2026, 11, day, 12)).toISOString();
  const signedOn = (day: number) => ({
    status: 'completed',
    evidenceReady: true,
    finalizedAt: noon(day),
    readAt: noon(day),
    final: true,
  });
  const documents = [
    documentIn('1', 'completed', { preparedAt: noon(1), tracking: signedOn(2) }),
    documentIn('2', 'completed', { preparedAt: noon(1), tracking: signedOn(3) }),
    documentIn('3', 'waiting', { preparedAt: noon(2) }),
    documentIn('4', 'not_sent'),
  ];
  const counts = countByClass(documents, (document) => document.class);
  const chart = () =>
    draw(<ProgressChart documents={documents} total={4} sent={3} signed={counts.completed} />);

  it('is an image named by its summary: how many sent and signed of how many, and between which days', () => {
    speak('en');
    const html = chart();
    const image = elementAt(html, /<svg[^>]*role="img"[^>]*>/);
    expect(image).toBeDefined();
    const labelledBy = /aria-labelledby="([^"]+)"/.exec(image ?? '')?.[1] ?? '';
    expect(textById(html, labelledBy)).toBe(
      '3 sent and 2 signed of 4 documents, between Dec 1, 2026 and Dec 3, 2026.',
    );
  });

  it('gives its figures as a table, day by day, with running totals', () => {
    speak('en');
    const figures = elementAt(chart(), /<details class="chart-figures">/) ?? '';
    expect(textOf(elementAt(figures, /<summary>/) ?? '')).toBe('Figures');
    expect(figures).toMatch(/role="region" aria-label="Figures" tabindex="0"/);
    const rows = [...figures.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, row = '']) => textOf(row));
    expect(rows).toEqual([
      'Day Sent Signed Sent in all Signed in all',
      'Dec 1, 2026 2 0 2 0',
      'Dec 2, 2026 1 1 3 1',
      'Dec 3, 2026 0 1 3 2',
    ]);
  });

  it('shows its key with the totals the lines reach, for the eye only (the summary says them)', () => {
    speak('en');
    const key = elementAt(chart(), /<ul class="chart-legend"[^>]*>/) ?? '';
    expect(key).toMatch(/aria-hidden="true"/);
    expect(textOf(key)).toBe('Sent: 3 Signed: 2');
  });

  it('speaks French and German', () => {
    speak('fr');
    let html = chart();
    let id = /<svg[^>]*aria-labelledby="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(textById(html, id)).toBe(
      '3 envoyés et 2 signés sur 4 documents, entre 1 déc. 2026 et 3 déc. 2026.',
    );
    expect(textOf(elementAt(html, /<figcaption[^>]*>/) ?? '')).toBe('Envoyés et signés au fil du temps');
    speak('de');
    html = chart();
    id = /<svg[^>]*aria-labelledby="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(textById(html, id)).toBe(
      '3 gesendet und 2 unterschrieben von 4 Dokumenten, zwischen 01.12.2026 und 03.12.2026.',
    );
  });

  it('says, and draws nothing, while nothing is sent', () => {
    speak('en');
    const html = draw(
      <ProgressChart documents={[documentIn('1', 'not_sent')]} total={1} sent={0} signed={0} />,
    );
    expect(html).not.toContain('role="img"');
    expect(textOf(html)).toBe(
      'Sent and signed over time Nothing sent yet: sending and signing will show here over time.',
    );
  });

  it('colors its lines from the theme’s variables, so light and dark both apply', () => {
    speak('en');
    const html = chart();
    expect(html).toMatch(/<path class="chart-line chart-sent" d="M [\d.]+ [\d.]+ H/);
    expect(html).toMatch(/<path class="chart-line chart-signed" d="M /);
    // No color written into the drawing: the stylesheet's variables give them.
    expect(html).not.toMatch(/(fill|stroke)="#/);
  });
});
