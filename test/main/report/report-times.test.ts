/**
 * The report's times as the person reads them: in this computer's time zone, written as their
 * language writes a date and a time, with the service's ISO 8601 UTC value kept in its own column.
 */
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { applyBatchEvent, emptyBatch } from '../../../main/domain/apply-batch-event';
import type { BatchEvent } from '../../../main/domain/batch-events';
import type { BatchState } from '../../../main/domain/batch-state';
import { batchReportCsv } from '../../../main/report/report-csv';
import { createTranslator } from '../../../shared/i18n/translator';

/** One document whose request was prepared, opened and finalized at these times. */
function signedBatch(times: { preparedAt: string; openedAt: string; finalizedAt: string }): BatchState {
  const events: BatchEvent[] = [
    { type: 'batch_created', batchId: 'b', name: 'B', defaults: { defaultRecipients: [] } },
    {
      type: 'document_added',
      document: {
        id: 'd',
        externalReference: 'RH-1',
        pdf: { originalName: 'd.pdf', storedFilename: 'd.pdf', sizeBytes: 10, sha256: 'a'.repeat(64) },
        recipients: [
          { participant_type: 'signer', role: 'Salariée', name: 'Anne', email: 'anne@example.com' },
        ],
        extraParticipants: [],
        options: {},
      },
    },
    { type: 'send_requested', documentIds: ['d'] },
    { type: 'request_created', documentId: 'd', requestId: 'sr_1', replayed: false },
    {
      type: 'request_prepared',
      documentId: 'd',
      revision: 1,
      sha256: 'b'.repeat(64),
      alreadyPrepared: false,
    },
    {
      type: 'status_read',
      documentId: 'd',
      status: {
        status: 'completed',
        documentStatus: 'finalized',
        evidenceReady: true,
        ...times,
        readAt: times.finalizedAt,
        final: true,
      },
    },
  ];
  return events.reduce(
    (state, event, index) => applyBatchEvent(state, { seq: index + 1, at: times.preparedAt, event }),
    emptyBatch('b'),
  );
}

const TIMES = {
  preparedAt: '2026-11-23T10:00:00.000Z',
  openedAt: '2026-11-23T10:05:00.000Z',
  finalizedAt: '2026-11-23T23:30:00.000Z',
};

/** The report's one row, read back as a spreadsheet reads it. */
function reportRow(language: 'en' | 'fr' | 'de', locale: string, timeZone?: string): Record<string, string> {
  const csv = batchReportCsv(signedBatch(TIMES), createTranslator(language, locale), timeZone);
  const delimiter = language === 'en' ? ',' : ';';
  const [row] = parse(csv, { bom: true, columns: true, delimiter }) as Record<string, string>[];
  return row ?? {};
}

describe('the report’s times', () => {
  const savedTz = process.env['TZ'];
  afterEach(() => {
    if (savedTz === undefined) delete process.env['TZ'];
    else process.env['TZ'] = savedTz;
  });

  it.each([
    // Paris is an hour ahead of UTC in November: the evening signature falls on the next day.
    ['fr', 'fr-FR', 'Europe/Paris', 'Finalisée (Europe/Paris)', '24/11/2026 00:30:00'],
    ['de', 'de-DE', 'Europe/Berlin', 'Abgeschlossen (Europe/Berlin)', '24.11.2026 00:30:00'],
    ['en', 'en-GB', 'Europe/London', 'Finalized (Europe/London)', '23/11/2026 23:30:00'],
    ['en', 'en-US', 'America/New_York', 'Finalized (America/New_York)', '11/23/2026 06:30:00 PM'],
    ['de', 'de-CH', 'Asia/Kolkata', 'Abgeschlossen (Asia/Kolkata)', '24.11.2026 05:00:00'],
  ] as const)('in %s (%s) and %s: "%s" says %s', (language, locale, zone, header, local) => {
    const row = reportRow(language, locale, zone);
    expect(row[header]).toBe(local);
    // The service's own value, in UTC, stays beside it.
    const utcHeader = createTranslator(language).t('report.column.finalizedAtUtc');
    expect(row[utcHeader]).toBe('2026-11-23T23:30:00.000Z');
  });

  it('follow this computer’s time zone when none is given', () => {
    process.env['TZ'] = 'Pacific/Auckland';
    // Auckland is thirteen hours ahead of UTC in its summer.
    expect(reportRow('en', 'en-GB')).toMatchObject({
      'Prepared (Pacific/Auckland)': '23/11/2026 23:00:00',
      'Finalized (Pacific/Auckland)': '24/11/2026 12:30:00',
      'Prepared (UTC, ISO 8601)': '2026-11-23T10:00:00.000Z',
    });
    process.env['TZ'] = 'America/Sao_Paulo';
    expect(reportRow('fr', 'fr-FR')).toMatchObject({ 'Préparée (America/Sao_Paulo)': '23/11/2026 07:00:00' });
  });

  it('write any instant as the wall-clock time of a zone a fixed number of hours from UTC', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) }),
        fc.integer({ min: -12, max: 14 }),
        (instant, hours) => {
          // Etc/GMT zones count west as positive: Etc/GMT-3 is three hours ahead of UTC.
          const zone = hours === 0 ? 'Etc/GMT' : `Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}`;
          const iso = new Date(Math.floor(instant / 1000) * 1000).toISOString();
          const csv = batchReportCsv(
            signedBatch({ preparedAt: iso, openedAt: iso, finalizedAt: iso }),
            createTranslator('fr', 'fr-FR'),
            zone,
          );
          const [row] = parse(csv, { bom: true, columns: true, delimiter: ';' }) as Record<string, string>[];
          // The wall clock there, worked out by hand: the instant moved by the zone's hours.
          const wall = new Date(Date.parse(iso) + hours * 3_600_000);
          const two = (value: number) => String(value).padStart(2, '0');
          const expected =
            `${two(wall.getUTCDate())}/${two(wall.getUTCMonth() + 1)}/${wall.getUTCFullYear()} ` +
            `${two(wall.getUTCHours())}:${two(wall.getUTCMinutes())}:${two(wall.getUTCSeconds())}`;
          expect(row?.[`Finalisée (${zone})`]).toBe(expected);
          expect(row?.['Finalisée (UTC, ISO 8601)']).toBe(iso);
        },
      ),
      { numRuns: 200 },
    );
  });

  it.each([
    // No zone file and an empty TZ: ICU says "Etc/Unknown", which no formatter takes.
    ['', 'Etc/Unknown'],
    // A name ICU does not know: it gives no zone at all, and writes UTC.
    ['Mars/Olympus_Mons', 'undefined'],
  ])(
    'on a computer whose zone cannot be named (TZ=%j, read as %s): the report still opens, in UTC, and its header says UTC',
    (tz, _read) => {
      process.env['TZ'] = tz;
      const row = reportRow('fr', 'fr-FR');
      expect(row).toMatchObject({
        'Préparée (UTC)': '23/11/2026 10:00:00',
        'Finalisée (UTC)': '23/11/2026 23:30:00',
        'Finalisée (UTC, ISO 8601)': '2026-11-23T23:30:00.000Z',
      });
    },
  );

  it.each([
    // French Canada writes "18 h 30 min 00 s", which no spreadsheet reads as a time.
    ['fr', 'fr-CA', 'America/Toronto', 'Finalisée (America/Toronto)', '2026-11-23 18:30:00'],
    ['en', 'en-CA', 'America/Toronto', 'Finalized (America/Toronto)', '2026-11-23 06:30:00 PM'],
    ['en', 'en-IN', 'Asia/Kolkata', 'Finalized (Asia/Kolkata)', '24/11/2026 05:00:00 AM'],
  ] as const)(
    'in %s (%s): the time is written as a spreadsheet reads one (hh:mm:ss, AM/PM)',
    (language, locale, zone, header, local) => {
      expect(reportRow(language, locale, zone)[header]).toBe(local);
    },
  );

  it('in the hour that repeats when the clocks go back, two times read alike locally; the ISO 8601 columns tell them apart', () => {
    // 25 October 2026, Paris: 02:30 summer time (00:30 UTC), then 02:30 winter time (01:30 UTC).
    const csv = batchReportCsv(
      signedBatch({
        preparedAt: '2026-10-25T00:30:00.000Z',
        openedAt: '2026-10-25T01:30:00.000Z',
        finalizedAt: '2026-10-25T02:30:00.000Z',
      }),
      createTranslator('fr', 'fr-FR'),
      'Europe/Paris',
    );
    const [row] = parse(csv, { bom: true, columns: true, delimiter: ';' }) as Record<string, string>[];
    expect(row).toMatchObject({
      'Préparée (Europe/Paris)': '25/10/2026 02:30:00',
      'Ouverte (Europe/Paris)': '25/10/2026 02:30:00',
      'Finalisée (Europe/Paris)': '25/10/2026 03:30:00',
      'Préparée (UTC, ISO 8601)': '2026-10-25T00:30:00.000Z',
      'Ouverte (UTC, ISO 8601)': '2026-10-25T01:30:00.000Z',
    });
  });
});
