import { useId, useMemo } from 'react';
import type { DocumentView } from '../../../shared/ipc/views';
import { useT, useTranslator } from '../i18n';
import { progressOverTime, type ProgressPoint, type TimeStep } from '../state/progress-over-time';

/** The drawing's size in CSS pixels, and the room its labels take around the plot. */
const WIDTH = 300;
const HEIGHT = 96;
const LEFT = 44;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 20;
const PLOT_WIDTH = WIDTH - LEFT - RIGHT;
const PLOT_HEIGHT = HEIGHT - TOP - BOTTOM;

/** Dates of the axis (short) and of the summary and the figures (whole), by the span of a point. */
const AXIS_FORMAT: Record<TimeStep, Intl.DateTimeFormatOptions> = {
  hour: { day: 'numeric', month: 'short', hour: 'numeric', minute: '2-digit' },
  day: { day: 'numeric', month: 'short' },
};
const WHOLE_FORMAT: Record<TimeStep, Intl.DateTimeFormatOptions> = {
  hour: { dateStyle: 'medium', timeStyle: 'short' },
  day: { dateStyle: 'medium' },
};

/**
 * The batch's documents sent and signed over time, drawn by hand in SVG: two lines that climb
 * towards the batch's size (sent dashed, signed solid over a shaded area, so color is not the
 * only difference), hour by hour or day by day. Its name is the summary beneath it, and its
 * figures are a table to open: what a screen reader reads, and what a person who cannot tell
 * the lines apart reads too. Colors come from the theme's variables, light or dark.
 */
export function ProgressChart({
  documents,
  total,
  sent,
  signed,
}: {
  readonly documents: readonly DocumentView[];
  /** Every document of the batch, and those sent and signed: the batch's one count. */
  readonly total: number;
  readonly sent: number;
  readonly signed: number;
}) {
  const t = useT();
  const { locale } = useTranslator();
  const id = useId();
  const { step, points } = useMemo(() => progressOverTime(documents), [documents]);
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) {
    return (
      <figure className="progress-chart progress-chart-empty">
        <figcaption className="chart-title">{t('batch.chart.title')}</figcaption>
        <p className="hint">{t('batch.chart.empty')}</p>
      </figure>
    );
  }
  const axisDate = new Intl.DateTimeFormat(locale, AXIS_FORMAT[step]);
  const wholeDate = new Intl.DateTimeFormat(locale, WHOLE_FORMAT[step]);
  const number = new Intl.NumberFormat(locale);
  const start = first.at;
  const end = last.until;
  const x = (time: number) => LEFT + ((time - start) / (end - start)) * PLOT_WIDTH;
  const top = Math.max(total, 1);
  const y = (count: number) => TOP + PLOT_HEIGHT * (1 - count / top);
  const sentLine = stepLine(points, 'sentSoFar', x, y, end);
  const signedLine = stepLine(points, 'signedSoFar', x, y, end);
  const summary = t('batch.chart.summary', {
    sent,
    signed,
    total,
    from: wholeDate.format(first.at),
    to: wholeDate.format(step === 'day' ? last.at : last.until),
  });

  return (
    <figure className="progress-chart">
      <svg
        role="img"
        aria-labelledby={`${id}-summary`}
        className="chart"
        width={WIDTH}
        height={HEIGHT}
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      >
        <line className="chart-grid" x1={LEFT} x2={WIDTH - RIGHT} y1={y(top)} y2={y(top)} />
        <line className="chart-axis" x1={LEFT} x2={WIDTH - RIGHT} y1={y(0)} y2={y(0)} />
        <text className="chart-label" x={LEFT - 4} y={y(top)} textAnchor="end" dominantBaseline="middle">
          {number.format(total)}
        </text>
        <text className="chart-label" x={LEFT - 4} y={y(0)} textAnchor="end" dominantBaseline="middle">
          {number.format(0)}
        </text>
        <path className="chart-signed-area" d={`${signedLine} V ${y(0)} H ${x(start)} Z`} />
        <path className="chart-line chart-sent" d={sentLine} />
        <path className="chart-line chart-signed" d={signedLine} />
        <text className="chart-label" x={LEFT} y={HEIGHT - 4} textAnchor="start">
          {axisDate.format(start)}
        </text>
        <text className="chart-label" x={WIDTH - RIGHT} y={HEIGHT - 4} textAnchor="end">
          {axisDate.format(step === 'day' ? last.at : end)}
        </text>
      </svg>
      <div className="chart-side">
        <figcaption className="chart-title">{t('batch.chart.title')}</figcaption>
        <p id={`${id}-summary`} className="visually-hidden">
          {summary}
        </p>
        {/* The key, with the totals the lines reach; hidden from screen readers, which read the summary. */}
        <ul className="chart-legend" aria-hidden="true">
          <li>
            <svg className="chart-key" width="24" height="10">
              <line className="chart-line chart-sent" x1="0" x2="24" y1="5" y2="5" />
            </svg>
            {t('batch.chart.sentKey', { count: sent })}
          </li>
          <li>
            <svg className="chart-key" width="24" height="10">
              <line className="chart-line chart-signed" x1="0" x2="24" y1="5" y2="5" />
            </svg>
            {t('batch.chart.signedKey', { count: signed })}
          </li>
        </ul>
        <details className="chart-figures">
          <summary>{t('batch.chart.figures')}</summary>
          <div
            className="chart-figures-scroll"
            role="region"
            aria-label={t('batch.chart.figures')}
            // Focusable, so its figures scroll with the keyboard.
            tabIndex={0}
          >
            <table className="table compact">
              <caption className="visually-hidden">{t('batch.chart.title')}</caption>
              <thead>
                <tr>
                  <th scope="col">
                    {t(step === 'hour' ? 'batch.chart.columnHour' : 'batch.chart.columnDay')}
                  </th>
                  <th scope="col">{t('batch.chart.columnSent')}</th>
                  <th scope="col">{t('batch.chart.columnSigned')}</th>
                  <th scope="col">{t('batch.chart.columnSentSoFar')}</th>
                  <th scope="col">{t('batch.chart.columnSignedSoFar')}</th>
                </tr>
              </thead>
              <tbody>
                {points.map((point) => (
                  <tr key={point.at}>
                    <th scope="row">{wholeDate.format(point.at)}</th>
                    <td>{number.format(point.sent)}</td>
                    <td>{number.format(point.signed)}</td>
                    <td>{number.format(point.sentSoFar)}</td>
                    <td>{number.format(point.signedSoFar)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </div>
    </figure>
  );
}

/**
 * The SVG path of a running total: from nothing at the start, up at each point's start to its
 * total by then, level until the next one, and on to `end`.
 */
function stepLine(
  points: readonly ProgressPoint[],
  field: 'sentSoFar' | 'signedSoFar',
  x: (time: number) => number,
  y: (count: number) => number,
  end: number,
): string {
  const first = points[0];
  if (!first) return '';
  const round = (value: number) => Math.round(value * 10) / 10;
  const parts = [`M ${round(x(first.at))} ${round(y(0))}`];
  for (const point of points) parts.push(`H ${round(x(point.at))} V ${round(y(point[field]))}`);
  parts.push(`H ${round(x(end))}`);
  return parts.join(' ');
}
