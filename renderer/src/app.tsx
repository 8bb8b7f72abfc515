import { useEffect } from 'react';
import { KeychainWait } from './components/keychain-wait';
import { Notices } from './components/notices';
import { BatchScreen } from './screens/batch-screen';
import { BatchesScreen } from './screens/batches-screen';
import { ConnectionsScreen } from './screens/connections-screen';
import { useDesk } from './state/store';

/** The desk: navigation, the active connection, tracking, messages and the current screen. */
export function App() {
  const screen = useDesk((state) => state.screen);
  const navigate = useDesk((state) => state.navigate);
  const connectBridge = useDesk((state) => state.connect);
  const info = useDesk((state) => state.info);
  const setTrackingPaused = useDesk((state) => state.tracking.setPaused);
  const activeProfile = useDesk((state) => state.profiles.find((profile) => profile.active));
  useEffect(() => connectBridge(), [connectBridge]);

  return (
    <div className="app">
      <header className="topbar">
        <h1 className="brand">Signing Batch Desk</h1>
        <nav aria-label="Main">
          <button
            type="button"
            aria-current={screen.name !== 'connections' ? 'page' : undefined}
            onClick={() => navigate({ name: 'batches' })}
          >
            Batches
          </button>
          <button
            type="button"
            aria-current={screen.name === 'connections' ? 'page' : undefined}
            onClick={() => navigate({ name: 'connections' })}
          >
            Connections
          </button>
        </nav>
        <div className="topbar-status">
          <span className="connection-pill">
            {activeProfile ? `Connection: ${activeProfile.name}` : 'No connection yet'}
          </span>
          {info && (
            <button type="button" onClick={() => void setTrackingPaused(!info.trackingPaused)}>
              {info.trackingPaused ? 'Resume tracking' : 'Pause tracking'}
            </button>
          )}
        </div>
      </header>
      {info?.trackingPaused && (
        <p className="banner app-banner" role="status">
          Tracking is paused: statuses are not read until you resume it (here or from the tray).
        </p>
      )}
      {info && info.damagedBatches.length > 0 && (
        <div className="banner banner-error app-banner" role="alert">
          <p>
            {info.damagedBatches.length === 1 ? 'A batch' : `${info.damagedBatches.length} batches`} of this
            data folder cannot be read and {info.damagedBatches.length === 1 ? 'is' : 'are'} left untouched.
            Do not send
            {info.damagedBatches.length === 1 ? ' its' : ' their'} documents again from another batch: restore
            the folder from a backup, or ask support.
          </p>
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
