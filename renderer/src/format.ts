import type { DocumentView } from '../../shared/ipc/views';
/** Numbers, sizes and dates in the user's own locale. */
const locale = typeof navigator === 'undefined' ? undefined : navigator.language;

export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)} ${units[unit]}`;
}

export function formatDateTime(iso: string | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

/** A time of day, e.g. "14:05:30", for "next try at". */
export function formatTime(epochMs: number): string {
  return new Intl.DateTimeFormat(locale, { timeStyle: 'medium' }).format(new Date(epochMs));
}

export function formatCount(value: number): string {
  return new Intl.NumberFormat(locale).format(value);
}

/** Words for the steps of a document being sent (its class is `sending`). */
const SENDING_STEPS: Readonly<Record<string, string>> = {
  queued: 'Queued',
  uploading: 'Uploading',
  creating: 'Creating request',
  adding_participants: 'Adding participants',
  preparing: 'Preparing',
  prepared: 'Waiting for signatures',
};

/**
 * Words for a document's state as main classifies it (`DocumentView.class`), with the detail a
 * user reads: the step while sending, the service's status while waiting for signatures
 * (unknown service values are shown as they are). It words the class; it never decides it.
 */
export function describeState(
  document: Pick<DocumentView, 'class' | 'phase' | 'tracking'>,
  livePhase?: string,
): string {
  switch (document.class) {
    case 'gone':
      return 'No longer at the service';
    case 'completed':
      return 'Completed — evidence ready';
    case 'needs_check':
      return 'Needs your check';
    case 'failed':
      return 'Failed';
    case 'not_sent':
      return 'Not sent';
    case 'sending': {
      const step = livePhase ?? document.phase;
      return SENDING_STEPS[step] ?? step;
    }
    case 'waiting': {
      const status = document.tracking?.status;
      if (status === 'completed') return 'Completed — evidence pending';
      if (status === 'in_progress') return 'Signing in progress';
      return status && status !== 'prepared' ? status : 'Waiting for signatures';
    }
  }
}
