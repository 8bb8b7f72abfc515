/**
 * A child process for crash tests of the send engine itself (the command line only sends what
 * a manifest holds, never extra participants): opens the desk of a data folder, sends one of
 * its batches, prints each engine event and then a summary as JSON lines.
 *
 * Usage: node send-child.mjs DATA_DIR BATCH_ID BASE_URL, with SIGNING_CLIENT_ID and
 * SIGNING_CLIENT_SECRET in the environment.
 */
import { openDesk } from '../../main/app/desk-core';
import { Secret } from '../../main/base/secret';

const [dataDir, batchId, baseUrl] = process.argv.slice(2);
if (!dataDir || !batchId || !baseUrl) throw new Error('usage: send-child DATA_DIR BATCH_ID BASE_URL');
const opening = await openDesk({
  dataDir,
  connection: {
    baseUrl,
    clientId: process.env.SIGNING_CLIENT_ID ?? '',
    clientSecret: new Secret(process.env.SIGNING_CLIENT_SECRET ?? ''),
  },
  concurrency: 4,
  retry: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 4, maxRetryAfterMs: 5_000 },
  engineWaitMs: { first: 50, longest: 400 },
});
if (!opening.ok) throw new Error(opening.error);
const desk = opening.value;
desk.engine.subscribe((event) => process.stdout.write(`${JSON.stringify(event)}\n`));
const summary = await desk.engine.send(batchId);
process.stdout.write(`${JSON.stringify({ ...summary, type: 'summary' })}\n`);
await desk.close();
