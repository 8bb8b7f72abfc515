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

/** Words for a send phase or a service status; unknown service values are shown as they are. */
export function describeState(
  phase: string,
  status: string | undefined,
  final: boolean,
  gone: boolean,
): string {
  if (gone) return 'No longer at the service';
  if (final) return 'Completed — evidence ready';
  if (status === 'completed') return 'Completed — evidence pending';
  if (status === 'in_progress') return 'Signing in progress';
  if (status && status !== 'prepared') return status;
  const phases: Record<string, string> = {
    draft: 'Not sent',
    queued: 'Queued',
    uploading: 'Uploading',
    creating: 'Creating request',
    adding_participants: 'Adding participants',
    preparing: 'Preparing',
    prepared: 'Waiting for signatures',
    needs_check: 'Needs your check',
    failed: 'Failed',
  };
  return phases[phase] ?? phase;
}
