/**
 * The child's side of a benchmark child process: reads its job, hands back its result. Kept
 * apart from the parent's side so a bundled child carries neither esbuild nor test code.
 */
import { openDesk, type Desk } from '../../main/app/desk-core';
import { Secret } from '../../main/base/secret';

/** In a child: the job passed by `runChild`. */
export function childJob<J>(): J {
  const raw = process.argv[2];
  if (raw === undefined) throw new Error('this file is a benchmark child; run it through its benchmark');
  return JSON.parse(raw) as J;
}

/** In a child: hands the result to the parent and lets the process end. */
export function sendToParent(result: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) {
      reject(new Error('no IPC channel to the parent'));
      return;
    }
    process.send(result, (error: Error | null) => {
      if (error) reject(error);
      else {
        process.disconnect?.();
        resolve();
      }
    });
  });
}

/** Where a child finds the service and its data folder. */
export interface ChildConnection {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly dataDir: string;
}

/** Opens the app's desk in the child, with the app's own defaults unless told otherwise. */
export async function openChildDesk(
  connection: ChildConnection,
  options: { readonly concurrency?: number } = {},
): Promise<Desk> {
  const opening = await openDesk({
    dataDir: connection.dataDir,
    connection: {
      baseUrl: connection.baseUrl,
      clientId: connection.clientId,
      clientSecret: new Secret(connection.clientSecret),
    },
    ...options,
  });
  if (!opening.ok) throw new Error(opening.error);
  return opening.value;
}

/** Runs the garbage collector when the child was started with --expose-gc. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
