import { useEffect } from 'react';
import { useT } from '../i18n';
import { useDesk } from '../state/store';
import type { Notice } from '../state/transitions';

/** How long a success or information message stays; errors and warnings stay until dismissed. */
const FADE_AFTER_MS = 8_000;

/**
 * Messages from the app, announced politely to assistive technology. Successes and information
 * fade; warnings and errors stay until dismissed or until the user goes to another screen (`withScreen`). The list sits in the
 * page's flow above the screen, so it never covers the buttons under it.
 */
export function Notices() {
  const t = useT();
  const notices = useDesk((state) => state.notices);
  const dismiss = useDesk((state) => state.actions.page.dismiss);
  return (
    <section className="notices" aria-live="polite" aria-label={t('batch.messages')}>
      {notices.map((notice) => (
        <NoticeItem key={notice.id} notice={notice} dismiss={dismiss} />
      ))}
    </section>
  );
}

function NoticeItem({ notice, dismiss }: { notice: Notice; dismiss: (id: number) => void }) {
  const t = useT();
  const { id, kind } = notice;
  useEffect(() => {
    if (kind === 'error' || kind === 'warning') return undefined;
    const timer = setTimeout(() => dismiss(id), FADE_AFTER_MS);
    return () => clearTimeout(timer);
  }, [id, kind, dismiss]);
  return (
    <div className={`notice notice-${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
      <span>{notice.text}</span>
      <button type="button" className="link" onClick={() => dismiss(id)} aria-label={t('common.dismiss')}>
        ×
      </button>
    </div>
  );
}
