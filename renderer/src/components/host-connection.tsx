import { useEffect, useState } from 'react';
import { useT } from '../i18n';
import { useDesk } from '../state/store';

/**
 * The browser host's page can lose its backend (the host stopped, or its connection broke or
 * went silent): a banner says so at once, instead of calls failing one by one. It goes only once
 * the page is current again: the events missed meanwhile delivered, or, when they could not be,
 * everything read anew — never while the page still shows what it had before the loss.
 */
export function HostConnection() {
  const t = useT();
  const { resync, onConnectionChange } = useDesk((state) => state.actions.app);
  const [connected, setConnected] = useState(true);
  useEffect(() => {
    // Each change supersedes the one before: a resync overtaken by a new loss hides nothing.
    let changes = 0;
    // A resync owed until one ran to its end while connected.
    let owed = false;
    return onConnectionChange((change) => {
      changes += 1;
      if (!change.connected) {
        setConnected(false);
        return;
      }
      owed ||= change.resync;
      if (!owed) {
        setConnected(true);
        return;
      }
      const mine = changes;
      void resync().then(() => {
        if (changes !== mine) return;
        owed = false;
        setConnected(true);
      });
    });
  }, [resync, onConnectionChange]);
  if (connected) return null;
  return (
    <div className="banner banner-error app-banner" role="alert">
      <p>
        <strong>{t('host.disconnectedTitle')}</strong> {t('host.disconnectedBody')}
      </p>
    </div>
  );
}
