import { afterEach, beforeEach, expect, it } from 'vitest';
import { parseCliArgs } from '../../../main/cli/cli-args';
import { statusCommand } from '../../../main/cli/commands';
import { watchCommand } from '../../../main/cli/watch-command';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { makeBatch } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';
import { collectingOutput } from '../../support/collecting-output';

/**
 * `watch` when a request stands in a status this app does not know (README "Tracking politely"): it
 * waits while that status may still move, and ends once it has stood unchanged for an hour of reads
 * (15 min, 30 min, 1 h after it was first read), naming it. Run in this process, on the simulator's
 * virtual clock, so that the hour takes a moment.
 */
const MINUTE = 60_000;

let sim: Simulator;
let clock: VirtualClock;
let files: TempFolder;
let savedEnvironment: Record<string, string | undefined>;

beforeEach(async () => {
  ({ sim, clock } = await startVirtualSimulator({ seed: 71 }));
  files = makeTempFolder('desk-watch-unknown-');
  savedEnvironment = {
    SIGNING_CLIENT_ID: process.env.SIGNING_CLIENT_ID,
    SIGNING_CLIENT_SECRET: process.env.SIGNING_CLIENT_SECRET,
  };
  process.env.SIGNING_CLIENT_ID = DEMO_CLIENT.clientId;
  process.env.SIGNING_CLIENT_SECRET = DEMO_CLIENT.clientSecret;
});
afterEach(async () => {
  for (const [name, value] of Object.entries(savedEnvironment)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await sim.close();
  files.remove();
});

/** An output that keeps every line and event, as the person and a script would see them. */
function args(...argv: string[]) {
  const parsed = parseCliArgs(argv);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

it('ends once a status it does not know has stood unchanged for an hour of reads, naming it, and exits 1', async () => {
  const dataDir = files.file('data');
  const desk = await openVirtualDesk(sim, clock, dataDir);
  const batch = await makeBatch(desk, files, 2);
  expect((await clock.complete(desk.engine.send(batch.id))).state).toBe('finished');
  await desk.close();
  const [held, signed] = sim.state.requests();
  sim.setStatus(held!.id, { status: 'on_hold' });
  sim.complete(signed!.id);
  await clock.advance(60_000);

  const out = collectingOutput();
  const watching = watchCommand(args('watch', '--data-dir', dataDir, '--base-url', sim.baseUrl), out, {
    clock,
  });
  // On the code before this rule, watch read on_hold forever: it must end within 3 h of its clock.
  expect(await clock.complete(watching, { withinMs: 180 * MINUTE, what: 'watch to end' })).toBe(1);

  const readTimes = out.events
    .filter((event) => event.type === 'checked' && event.documentId === batch.documents[0]!.draft.id)
    .map((event) => Date.parse(String(event.at)));
  // Read at once, then at the slow, growing pace (15 min, 30 min, 1 h, … with the app's jitter
  // of ±20 %), until the read that found it unchanged for an hour: watch ended there.
  const sinceFirst = readTimes.map((at) => (at - readTimes[0]!) / MINUTE);
  expect(sinceFirst.at(-1)).toBeGreaterThanOrEqual(60);
  expect(sinceFirst.at(-2)).toBeLessThan(60);
  for (let index = 1; index < sinceFirst.length; index += 1)
    expect(sinceFirst[index]! - sinceFirst[index - 1]!).toBeGreaterThanOrEqual(12);
  expect(out.lines).toContain('  ✓ REF-2: completed, evidence ready');
  expect(out.lines).toContain('  · REF-1: on_hold (a status this app does not know: checked less often)');
  expect(out.lines).toContain('Stopped on 1 request that did not complete:');
  expect(out.lines.find((line) => line.startsWith('  REF-1: '))).toMatch(
    /^ {2}REF-1: status 'on_hold' not known to this app, unchanged since \S+; the app keeps checking it$/,
  );
  expect(out.lines.at(-1)).toBe('1 request still open (1 in a status this app does not know).');
  expect(out.events.filter((event) => event.type === 'stopped')).toEqual([
    {
      type: 'stopped',
      externalReference: 'REF-1',
      requestId: held!.id,
      reason: 'unknown_status',
      status: 'on_hold',
    },
  ]);
  expect(out.events.at(-1)).toEqual({ type: 'summary', open: 1, gone: 0, ended: 0, unknownStatus: 1 });

  // `status` files it apart, with the service's word.
  const status = collectingOutput();
  expect(await statusCommand(args('status', '--data-dir', dataDir), status)).toBe(0);
  expect(status.lines.find((line) => line.includes('REF-1'))).toMatch(
    /status 'on_hold' not known to this app; still checked, less often$/,
  );
  expect(status.lines.at(-1)).toBe(
    '2 documents: 2 prepared, 1 completed, 1 in a status not recognized, 0 failed, 0 gone.',
  );
  expect(sim.state.violations()).toEqual([]);
});
