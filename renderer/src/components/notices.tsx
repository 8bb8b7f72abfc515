import { useEffect } from 'react';
import { useDesk } from '../state/store';
import type { Notice } from '../state/transitions';

/** How long a success or information message stays; errors stay until dismissed. */
const FADE_AFTER_MS = 8_000;

/** Messages from the app, announced politely to assistive technology. */
export function Notices() {
  const notices = useDesk((state) => state.notices);
  const dismiss = useDesk((state) => state.dismiss);
  return (
    <section className="notices" aria-live="polite" aria-label="Messages">
      {notices.map((notice) => (
        <NoticeItem key={notice.id} notice={notice} dismiss={dismiss} />
      ))}
    </section>
  );
}

function NoticeItem({ notice, dismiss }: { notice: Notice; dismiss: (id: number) => void }) {
  const { id, kind } = notice;
  useEffect(() => {
    if (kind === 'error') return undefined;
    const timer = setTimeout(() => dismiss(id), FADE_AFTER_MS);
    return () => clearTimeout(timer);
  }, [id, kind, dismiss]);
  return (
    <div className={`notice notice-${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
      <span>{notice.text}</span>
      <button type="button" className="link" onClick={() => dismiss(id)} aria-label="Dismiss message">
        ×
      </button>
    </div>
  );
}
