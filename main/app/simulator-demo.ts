/**
 * The demo connection: the built-in service simulator (`simulator/`), started in this process. Only
 * development hosts offer it (the browser host, and Electron when run from the source folder),
 * so a newcomer can try the whole flow without an account. Given the data folder, the demo
 * keeps its service data there (`demo-service/`) and listens on the same port again, so demo
 * batches survive a restart of the app and keep working.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../simulator/simulator';
import type { SimulatorOptions } from '../../simulator/types';
import type { DemoProvider } from './ports';

/**
 * The built-in simulator as the demo connection, started in this process on first use; its time
 * is `timeSource` (the desk's clock in a test), the system's by default.
 */
export function simulatorDemo(
  dataDir?: string,
  timeSource?: SimulatorOptions['timeSource'],
): DemoProvider & { close(): Promise<void> } {
  const folder = dataDir === undefined ? undefined : join(dataDir, 'demo-service');
  const statePath = folder && join(folder, 'state.json');
  const portPath = folder && join(folder, 'port');
  let running: Promise<Simulator> | undefined;

  async function startOnce(): Promise<Simulator> {
    const savedPort = portPath && existsSync(portPath) ? Number(readFileSync(portPath, 'utf8')) : 0;
    const options = { ...(statePath ? { statePath } : {}), ...(timeSource ? { timeSource } : {}) };
    let simulator: Simulator;
    try {
      simulator = await startSimulator({ ...options, port: Number.isInteger(savedPort) ? savedPort : 0 });
    } catch {
      // The port is taken now: batches bound to the old address will say their connection is gone.
      simulator = await startSimulator({ ...options, port: 0 });
    }
    if (folder && portPath) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(portPath, new URL(simulator.baseUrl).port);
    }
    return simulator;
  }

  const start = async () => {
    running ??= startOnce();
    const simulator = await running.catch((error: unknown) => {
      running = undefined;
      throw error;
    });
    return {
      baseUrl: simulator.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      clientSecret: DEMO_CLIENT.clientSecret,
    };
  };
  return {
    start,
    async resume() {
      // Used before in this data folder: start it again so that its batches are tracked.
      return statePath && existsSync(statePath) ? start() : undefined;
    },
    async close() {
      const simulator = await running?.catch(() => undefined);
      await simulator?.close();
    },
  };
}
