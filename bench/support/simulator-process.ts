import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The simulator running in a process of its own (`simulator/cli.ts`), steered over HTTP. */
export interface SimulatorProcess {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Calls recorded so far (the control API's `totalCalls`: the same log as `sim.state.calls()`). */
  totalCalls(): Promise<number>;
  close(): Promise<void>;
}

const bannerSchema = z.object({ baseUrl: z.string(), clientId: z.string(), clientSecret: z.string() });
const stateSchema = z.object({ totalCalls: z.number() });
const CLI = fileURLToPath(new URL('../../simulator/cli.ts', import.meta.url));

/** Starts the simulator's command line on a free port with `latencyMs` on every API call. */
export async function startSimulatorProcess(latencyMs: number): Promise<SimulatorProcess> {
  const child = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), CLI, '--port', '0', '--json', '--latency-ms', String(latencyMs)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const stdout = child.stdout;
  if (!stdout) throw new Error('the simulator process has no stdout');
  const lines = createInterface({ input: stdout });
  const [first] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(() => {
      throw new Error('the simulator process exited before listening');
    }),
  ])) as [string];
  lines.close();
  stdout.resume();
  const banner = bannerSchema.parse(JSON.parse(first));
  return {
    ...banner,
    async totalCalls() {
      const response = await fetch(`${banner.baseUrl}/__simulator/state`);
      return stateSchema.parse(await response.json()).totalCalls;
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
