import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Desk } from '../../../main/app/desk-core';
import { parseCliArgs } from '../../../main/cli/cli-args';
import { statusCommand } from '../../../main/cli/commands';
import type { Simulator } from '../../../simulator/simulator';
import { makeBatch } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';
import { collectingOutput } from '../../support/collecting-output';

/**
 * `status` says every document of the data folder in its summary line, in the app's groups
 * (README, command line reference): a newcomer who reads "2 documents: 0 prepared, 0 completed,
 * 0 failed, 0 gone." cannot tell where the two documents are. Documents not sent yet (and those
 * a killed `send` left sending) are counted in the words, as they are in the `--json` summary.
 */

let sim: Simulator;
let files: TempFolder;
let desk: Desk | undefined;

beforeEach(async () => {
  let clock;
  ({ sim, clock } = await startVirtualSimulator({ seed: 5 }));
  files = makeTempFolder('desk-cli-status-summary-');
  desk = await openVirtualDesk(sim, clock, files.file('data'));
});
afterEach(async () => {
  await desk?.close();
  await sim.close();
  files.remove();
});

it('`status` counts documents not sent yet in its summary line', async () => {
  await makeBatch(desk!, files, 2);
  await desk!.close();
  desk = undefined;
  const out = collectingOutput();
  const parsed = parseCliArgs(['status', '--data-dir', files.file('data')]);
  if (!parsed.ok) throw new Error(parsed.error.message);
  expect(await statusCommand(parsed.value, out)).toBe(0);
  expect(out.lines.at(-1)).toMatch(/^2 documents: .*\b2 not sent\b/);
});
