import { useT } from '../i18n';
import { useDesk } from '../state/store';

/**
 * The system keychain keeps the desk waiting (its own unlock prompt, perhaps behind the
 * window): said within a second on every screen, as main reports it. The Connections screen
 * says it in its form instead, with "Stop waiting".
 */
export function KeychainWait() {
  const t = useT();
  const waiting = useDesk((state) => state.keychainWaiting);
  const onConnections = useDesk((state) => state.screen.name === 'connections');
  if (!waiting || onConnections) return null;
  return (
    <p className="banner app-banner" role="status">
      {t('waits.keychain')} {t('waits.keychainHelp')}
    </p>
  );
}
