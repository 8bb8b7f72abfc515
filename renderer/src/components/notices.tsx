import { useDesk } from '../state/store';

/** Messages from the app, announced politely to assistive technology. */
export function Notices() {
  const notices = useDesk((state) => state.notices);
  const dismiss = useDesk((state) => state.dismiss);
  return (
    <section className="notices" aria-live="polite" aria-label="Messages">
      {notices.map((notice) => (
        <div
          key={notice.id}
          className={`notice notice-${notice.kind}`}
          role={notice.kind === 'error' ? 'alert' : 'status'}
        >
          <span>{notice.text}</span>
          <button
            type="button"
            className="link"
            onClick={() => dismiss(notice.id)}
            aria-label="Dismiss message"
          >
            ×
          </button>
        </div>
      ))}
    </section>
  );
}
