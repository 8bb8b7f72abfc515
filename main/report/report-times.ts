/**
 * A report's times as the person reads them: in this computer's time zone, written the way their
 * language writes a date and a time, so that their spreadsheet reads each cell as a date. The
 * service's own ISO 8601 UTC value stays in a column of its own (report-csv.ts).
 */

/** The time zone this computer is set to (the `TZ` environment variable, else the system's). */
export function systemTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Writes an ISO 8601 time in `timeZone`, as `locale` writes dates and times. */
export type LocalTime = (iso: string | undefined) => string | undefined;

/**
 * The writer of local times for one report. The date and the time are written apart and joined
 * by a space (`23/11/2026 11:00:00`, `11/23/2026 11:00:00 AM`, `23.11.2026 11:00:00`): the comma
 * some languages put between them stops a spreadsheet from reading the cell as a date. A value
 * that is not a time is kept as the service wrote it.
 */
export function localTimeWriter(locale: string, timeZone: string): LocalTime {
  const date = new Intl.DateTimeFormat(locale, {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  const time = new Intl.DateTimeFormat(locale, {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return (iso) => {
    if (iso === undefined) return undefined;
    const at = Date.parse(iso);
    return Number.isNaN(at) ? iso : `${date.format(at)} ${time.format(at)}`;
  };
}
