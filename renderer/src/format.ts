import type { DocumentView } from '../../shared/ipc/views';
import type { MessageId } from '../../shared/i18n/catalog';
import type { Translator } from '../../shared/i18n/translator';

/**
 * Numbers, sizes and dates in the locale the desk speaks: pass the store translator's `locale`
 * (main's answer: the user's setting or the OS), not the browser's own guess. Without one, the
 * runtime's default applies.
 */

/**
 * Intl formatters, each made once per locale and style, then reused: making one looks up its
 * locale's data and costs far more than formatting with it, and a scrolling table formats a
 * date for every row it brings into view, frame after frame.
 */
const formatters = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();

/** The formatter known as `key`, made by `make` the first time it is asked for. */
function reused<T extends Intl.DateTimeFormat | Intl.NumberFormat>(key: string, make: () => T): T {
  let format = formatters.get(key) as T | undefined;
  if (!format) {
    format = make();
    formatters.set(key, format);
  }
  return format;
}

/**
 * A size in binary units (KiB, MiB, GiB: 1,024 each), the units the service's limits are stated
 * in, so a file's size and the limit it must stay under read alike.
 */
export function formatBytes(bytes: number, locale?: string): string {
  // French writes the same binary units with "octet": o, Kio, Mio, Gio.
  const units = /^fr\b/i.test(locale ?? '') ? ['o', 'Kio', 'Mio', 'Gio'] : ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 ? 0 : 1;
  const number = reused(
    `number ${digits} ${locale ?? ''}`,
    () => new Intl.NumberFormat(locale, { maximumFractionDigits: digits }),
  ).format(value);
  // A non-breaking space: the number never ends one line and its unit starts the next.
  return `${number}\u00a0${units[unit]}`;
}

export function formatDateTime(iso: string | undefined, locale?: string): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : reused(
        `medium ${locale ?? ''}`,
        () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }),
      ).format(date);
}

/**
 * A length of time as the locale writes it, to the second: "30 sec", "1 min, 30 sec", "15 min"
 * in English; "30 s" in French; "30 Sek." in German. A link valid for 30 s is never said to last
 * "1 min", nor a token of 20 s "0 min".
 */
export function formatDuration(totalSeconds: number, locale?: string): string {
  const seconds = Math.max(0, Math.round(totalSeconds));
  const parts = [
    { unit: 'hour', value: Math.floor(seconds / 3600) },
    { unit: 'minute', value: Math.floor((seconds % 3600) / 60) },
    { unit: 'second', value: seconds % 60 },
  ].filter((part) => part.value > 0);
  const shown = parts.length > 0 ? parts : [{ unit: 'second', value: 0 }];
  return new Intl.ListFormat(locale, { type: 'unit', style: 'short' }).format(
    shown.map(({ unit, value }) =>
      new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'short' }).format(value),
    ),
  );
}

/**
 * A date and time in the locale's short form ("06/12/2026 14:05" in French, "06.12.26, 14:05" in
 * German): what a compact row shows, on one line.
 */
export function formatShortDateTime(iso: string | undefined, locale?: string): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : reused(
        `short ${locale ?? ''}`,
        () => new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'short' }),
      ).format(date);
}

/** A time of day, e.g. "14:05:30", for "next try at". */
export function formatTime(epochMs: number, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { timeStyle: 'medium' }).format(new Date(epochMs));
}

export function formatCount(value: number, locale?: string): string {
  return new Intl.NumberFormat(locale).format(value);
}

/** Words for the steps of a document being sent (its class is `sending`). */
const SENDING_STEPS: Readonly<Record<string, MessageId>> = {
  queued: 'documents.step.queued',
  uploading: 'documents.step.uploading',
  creating: 'documents.step.creating',
  adding_participants: 'documents.step.addingParticipants',
  preparing: 'documents.step.preparing',
  prepared: 'documents.step.prepared',
};

/**
 * Words for a document's state as main classifies it (`DocumentView.class`), with the detail a
 * user reads: the step while sending, the service's status while waiting for signatures, and
 * the service's own word for a request that ended or whose status the app does not know. It
 * words the class; it never decides it.
 */
export function describeState(
  document: Pick<DocumentView, 'class' | 'phase' | 'tracking'>,
  t: Translator['t'],
  livePhase?: string,
): string {
  switch (document.class) {
    case 'gone':
      return t('documents.state.gone');
    case 'completed':
      return t('documents.state.completed');
    case 'ended':
      return t('documents.state.ended', { status: document.tracking?.status ?? '' });
    case 'unknown_status':
      return t('documents.state.unknownStatus', { status: document.tracking?.status ?? '' });
    case 'needs_check':
      return t('documents.state.needsCheck');
    case 'failed':
      return t('documents.state.failed');
    case 'not_sent':
      return t('documents.state.notSent');
    case 'sending': {
      const step = livePhase ?? document.phase;
      const id = SENDING_STEPS[step];
      return id ? t(id) : step;
    }
    case 'waiting': {
      const status = document.tracking?.status;
      if (status === 'completed') return t('documents.state.evidencePending');
      if (status === 'in_progress') return t('documents.state.inProgress');
      return status && status !== 'prepared' ? status : t('documents.state.waiting');
    }
  }
}
