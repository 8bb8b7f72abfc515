/**
 * The demo connection: the service simulator of the test suite, started in this process. Only
 * development hosts offer it (the browser host, and Electron when run from the source folder),
 * so a newcomer can try the whole flow without an account.
 */
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../test/simulator/simulator';
import type { DemoProvider } from './ports';

/** The built-in simulator as the demo connection, started in this process on first use. */
export function simulatorDemo(): DemoProvider & { close(): Promise<void> } {
  let running: Promise<Simulator> | undefined;
  return {
    async start() {
      running ??= startSimulator({ port: 0 });
      const simulator = await running.catch((error: unknown) => {
        running = undefined;
        throw error;
      });
      return {
        baseUrl: simulator.baseUrl,
        clientId: DEMO_CLIENT.clientId,
        clientSecret: DEMO_CLIENT.clientSecret,
      };
    },
    async close() {
      const simulator = await running?.catch(() => undefined);
      await simulator?.close();
    },
  };
}
