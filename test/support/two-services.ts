/**
 * A sandbox and a production service, a data folder and a keychain on one virtual clock: the
 * world of the desk tests where batches are sent with different connections.
 */
import { openDataDir, type DataDir } from '../../main/app/desk-core';
import { createMemoryCredentialStore, type CredentialStore } from '../../main/credentials/credential-store';
import type { VirtualClock } from '../../main/time/virtual-clock';
import type { DeskHandlers } from '../../shared/ipc/contract';
import { DEMO_CLIENT, type Simulator } from '../../simulator/simulator';
import { profileNameOfAccount } from './keychain-accounts';
import { makeTempFolder, type TempFolder } from './pdf-files';
import { startVirtualSimulator } from './virtual-world';

export interface TwoServices {
  readonly files: TempFolder;
  readonly clock: VirtualClock;
  /** The data folder, opened on `clock`. */
  readonly dataDir: DataDir;
  readonly sandbox: Simulator;
  readonly production: Simulator;
  /** A keychain in memory that answers after `keychainDelayMs` for a profile name. */
  readonly credentials: CredentialStore;
  /** How long the keychain takes to answer for a profile name (an unlock prompt, a busy daemon); none: at once. */
  readonly keychainDelayMs: Map<string, number>;
  /** Closes the data folder and both services and removes the files; the desk is the caller's to close first. */
  close(): Promise<void>;
}

/** Starts both services (simulators seeded with `seeds`) and opens a data folder in a new temp folder named after `prefix`. */
export async function openTwoServices(
  prefix: string,
  seeds: readonly [number, number],
): Promise<TwoServices> {
  const files = makeTempFolder(prefix);
  const { sim: sandbox, clock } = await startVirtualSimulator({ seed: seeds[0] });
  const { sim: production } = await startVirtualSimulator({ seed: seeds[1] }, clock);
  const opened = await openDataDir(files.file('data'), { clock });
  if (!opened.ok) throw new Error(opened.error);
  const dataDir = opened.value;
  const memory = createMemoryCredentialStore();
  const keychainDelayMs = new Map<string, number>();
  const credentials: CredentialStore = {
    ...memory,
    readSecret: async (name) => {
      const ms = keychainDelayMs.get(profileNameOfAccount(name));
      if (ms) await clock.callWaits(ms); // held on the clock, as a far end holds a call
      return memory.readSecret(name);
    },
  };
  return {
    files,
    clock,
    dataDir,
    sandbox,
    production,
    credentials,
    keychainDelayMs,
    close: async () => {
      await dataDir.close();
      await sandbox.close();
      await production.close();
      files.remove();
    },
  };
}

/** Saves a connection named "Sandbox" to the sandbox and one named "Production" to production, with the demo client. */
export async function saveBothConnections(handlers: DeskHandlers, world: TwoServices): Promise<void> {
  for (const [name, sim] of [
    ['Sandbox', world.sandbox],
    ['Production', world.production],
  ] as const)
    await handlers['profiles.save']({
      name,
      baseUrl: sim.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      secret: DEMO_CLIENT.clientSecret,
    });
}
