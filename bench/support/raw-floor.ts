import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { z } from 'zod';
import type { SimulatorProcess } from './simulator-process';

const tokenSchema = z.object({ access_token: z.string() });

/** What the same calls cost without the app, against one simulator process. */
export interface RawFloor {
  readonly concurrency: number;
  readonly documents: number;
  readonly wallMs: number;
  /** Calls made: per document one upload and three JSON calls. */
  readonly calls: number;
}

/** Sends one call and reads its whole answer; answers its status. */
async function call(url: string, init: Parameters<typeof request>[1]): Promise<number> {
  const answer = await request(url, init);
  await answer.body.arrayBuffer();
  return answer.statusCode;
}

/**
 * The floor under the send engine: per document a 1 MiB upload (`pdf`) and three JSON calls
 * (a prepare of a request that does not exist: answered 404 after the simulator's latency,
 * the cheapest full pass through its API), `concurrency` documents at a time, over plain
 * undici with one token and nothing stored. No client can send the same calls faster against
 * this simulator process on the machine that runs it: what the app takes above it is the app's.
 */
export async function measureRawFloor(
  sim: SimulatorProcess,
  pdf: Buffer,
  concurrency: number,
  documents: number,
): Promise<RawFloor> {
  const token = await request(`${sim.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: sim.clientId,
      client_secret: sim.clientSecret,
    }).toString(),
  });
  const { access_token: accessToken } = tokenSchema.parse(await token.body.json());
  const authorization = `Bearer ${accessToken}`;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < documents; index = next++) {
      const uploaded = await call(`${sim.baseUrl}/api/v1/uploads`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/pdf', 'x-filename': `floor-${index}.pdf` },
        body: pdf,
      });
      if (uploaded !== 201) throw new Error(`raw upload answered ${uploaded}`);
      for (let step = 0; step < 3; step += 1) {
        await call(`${sim.baseUrl}/api/v1/signing-requests/missing-${index}-${step}/prepare`, {
          method: 'POST',
          headers: { authorization },
        });
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { concurrency, documents, wallMs: performance.now() - started, calls: documents * 4 };
}
