import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Desk } from '../../../main/app/desk-core';
import { parseCliArgs } from '../../../main/cli/cli-args';
import { countLabel, plural } from '../../../main/cli/cli-output';
import { statusCommand } from '../../../main/cli/commands';
import type { Simulator } from '../../../simulator/simulator';
import { makeBatch } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';
import { collectingOutput } from '../../support/collecting-output';

/**
 * The command line speaks English with its plurals right: "1 document", never "1 documents";
 * "1 needs your check", "2 need"; a count and the words that agree with it, by Intl.PluralRules.
 */

let sim: Simulator;
let files: TempFolder;
let desk: Desk | undefined;

beforeEach(async () => {
  let clock;
  ({ sim, clock } = await startVirtualSimulator({ seed: 5 }));
  files = makeTempFolder('desk-cli-plurals-');
  desk = await openVirtualDesk(sim, clock, files.file('data'));
});
afterEach(async () => {
  await desk?.close();
  await sim.close();
  files.remove();
});

it('a count and the words that agree with it: one, then other', () => {
  expect([0, 1, 2, 5_000].map((count) => countLabel(count, 'document', 'documents'))).toEqual([
    '0 documents',
    '1 document',
    '2 documents',
    '5,000 documents',
  ]);
  expect([1, 2].map((count) => `${count} ${plural(count, 'needs', 'need')} your check`)).toEqual([
    '1 needs your check',
    '2 need your check',
  ]);
});

it('`status` of a data folder with one document says "1 document", not "1 documents"', async () => {
  await makeBatch(desk!, files, 1);
  await desk!.close();
  desk = undefined;
  const out = collectingOutput();
  const parsed = parseCliArgs(['status', '--data-dir', files.file('data')]);
  if (!parsed.ok) throw new Error(parsed.error.message);
  expect(await statusCommand(parsed.value, out)).toBe(0);
  expect(out.lines.at(-1)).toBe('1 document: 1 not sent, 0 prepared, 0 completed, 0 failed, 0 gone.');
});
