import { useEffect, useState } from 'react';
import { desk } from '../bridge';
import { useT } from '../i18n';
import { useDesk } from '../state/store';

/**
 * The browser host's page can lose its backend (the host stopped, or its connection broke):
 * a banner says so at once, instead of calls failing one by one; when the backend answers
 * again, the page reads everything anew (events sent meanwhile were missed) and the banner goes.
 */
export function HostConnection() {
  const t = useT();
  const resync = useDesk((state) => state.resync);
  const [connected, setConnected] = useState(true);
  useEffect(() => {
    const subscribe = desk().onConnectionChange;
    if (!subscribe) return undefined;
    let lost = false;
    return subscribe((now) => {
      setConnected(now);
      if (!now) lost = true;
      else if (lost) {
        lost = false;
        void resync();
      }
    });
  }, [resync]);
  if (connected) return null;
  return (
    <div className="banner banner-error app-banner" role="alert">
      <p>
        <strong>{t('host.disconnectedTitle')}</strong> {t('host.disconnectedBody')}
      </p>
    </div>
  );
}
