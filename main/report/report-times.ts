/**
 * A report's times as the person reads them: in this computer's time zone, written the way their
 * language writes a date and a time, so that their spreadsheet reads each cell as a date. The
 * service's own ISO 8601 UTC value stays in a column of its own (report-csv.ts).
 */

/**
 * The time zone this computer is set to (the `TZ` environment variable, else the system's), or
 * `UTC` when it cannot be named: with no zone file and an empty `TZ` the runtime says
 * "Etc/Unknown", which no formatter accepts, and with a `TZ` it does not know it names none at
 * all (it then writes UTC itself). Either way the times are written in UTC and said to be.
 */
export function systemTimeZone(): string {
  const zone = new Intl.DateTimeFormat().resolvedOptions().timeZone as string | undefined;
  if (zone === undefined) return 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone;
  } catch {
    return 'UTC';
  }
}

/** Writes an ISO 8601 time in `timeZone`, as `locale` writes dates and times. */
export type LocalTime = (iso: string | undefined) => string | undefined;

/**
 * The time of day as every spreadsheet reads one: hours, minutes and seconds joined by colons, on
 * the locale's clock (24 or 12 hours), and AM or PM after a 12-hour one. Some locales write it
 * otherwise ("18 h 30 min 00 s" in French Canada, "6:30:00 p.m." in English Canada), which a
 * spreadsheet keeps as text.
 */
function timeOfDay(time: Intl.DateTimeFormat, at: number): string {
  const parts = time.formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((each) => each.type === type)?.value;
  const clock = [part('hour'), part('minute'), part('second')].join(':');
  const period = part('dayPeriod');
  if (period === undefined) return clock;
  const latin = period.replace(/[.\s]/g, '').toUpperCase();
  return `${clock} ${latin === 'AM' || latin === 'PM' ? latin : period}`;
}

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
    return Number.isNaN(at) ? iso : `${date.format(at)} ${timeOfDay(time, at)}`;
  };
}
