import { useEffect } from 'react';
import { Notices } from './components/notices';
import { BatchScreen } from './screens/batch-screen';
import { BatchesScreen } from './screens/batches-screen';
import { ConnectionsScreen } from './screens/connections-screen';
import { useDesk } from './state/store';

/** The desk: navigation, messages and the current screen. */
export function App() {
  const screen = useDesk((state) => state.screen);
  const navigate = useDesk((state) => state.navigate);
  const connectBridge = useDesk((state) => state.connect);
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
        <p className="connection-pill" aria-label="Active connection">
          {activeProfile ? `Connected as ${activeProfile.name}` : 'No connection yet'}
        </p>
      </header>
      <Notices />
      <main>
        {screen.name === 'batches' && <BatchesScreen />}
        {screen.name === 'batch' && <BatchScreen batchId={screen.batchId} />}
        {screen.name === 'connections' && <ConnectionsScreen />}
      </main>
    </div>
  );
}
