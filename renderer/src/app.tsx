import { useEffect } from 'react';
import { ConnectionPill } from './components/connection-pill';
import { HostConnection } from './components/host-connection';
import { LanguageSetting } from './components/language-setting';
import { KeychainWait } from './components/keychain-wait';
import { Notices } from './components/notices';
import { useT } from './i18n';
import { BatchScreen } from './screens/batch-screen';
import { BatchesScreen } from './screens/batches-screen';
import { ConnectionsScreen } from './screens/connections-screen';
import { useDesk } from './state/store';

/** The desk: navigation, the active connection, tracking, messages and the current screen. */
export function App() {
  const t = useT();
  const screen = useDesk((state) => state.screen);
  const navigate = useDesk((state) => state.actions.page.navigate);
  const connectBridge = useDesk((state) => state.actions.app.connect);
  const info = useDesk((state) => state.info);
  const setTrackingPaused = useDesk((state) => state.actions.tracking.setPaused);
  useEffect(() => connectBridge(), [connectBridge]);

  return (
    <div className="app">
      <header className="topbar">
        <h1 className="brand">{t('common.appName')}</h1>
        <nav aria-label={t('common.mainNavigation')}>
          <button
            type="button"
            aria-current={screen.name !== 'connections' ? 'page' : undefined}
            onClick={() => navigate({ name: 'batches' })}
          >
            {t('common.batches')}
          </button>
          <button
            type="button"
            aria-current={screen.name === 'connections' ? 'page' : undefined}
            onClick={() => navigate({ name: 'connections' })}
          >
            {t('common.connections')}
          </button>
        </nav>
        <div className="topbar-status">
          <ConnectionPill />
          {info && (
            <button type="button" onClick={() => void setTrackingPaused(!info.trackingPaused)}>
              {info.trackingPaused ? t('common.resumeTracking') : t('common.pauseTracking')}
            </button>
          )}
          <LanguageSetting />
        </div>
      </header>
      <HostConnection />
      {info?.trackingPaused && (
        <p className="banner app-banner" role="status">
          {/* The browser host has no tray: it says only what is true there. */}
          {info.host === 'electron' ? t('common.trackingPausedTray') : t('common.trackingPaused')}
        </p>
      )}
      {info && info.damagedBatches.length > 0 && (
        <div className="banner banner-error app-banner" role="alert">
          <p>{t('common.damagedBatches', { count: info.damagedBatches.length })}</p>
          <ul>
            {info.damagedBatches.map((damaged) => (
              <li key={damaged.batchId}>
                <span className="mono">{damaged.batchId}</span>: {damaged.problem}
              </li>
            ))}
          </ul>
        </div>
      )}
      <KeychainWait />
      <Notices />
      <main>
        {screen.name === 'batches' && <BatchesScreen />}
        {screen.name === 'batch' && <BatchScreen batchId={screen.batchId} />}
        {screen.name === 'connections' && <ConnectionsScreen />}
      </main>
    </div>
  );
}
