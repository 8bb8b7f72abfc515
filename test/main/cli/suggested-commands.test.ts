import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { optionArg, quoted } from '../../../main/cli/batch-run';
import { parseCliArgs } from '../../../main/cli/cli-args';

/**
 * The commands `send` prints for the person to paste (resolve a check, continue a batch, send
 * anew): whatever the folder, reference or request id holds, the shell hands the command line
 * back exactly those values.
 */
function pasted(commandLine: string): string[] {
  // What a POSIX shell makes of the printed line: its words, one per NUL.
  const words = execFileSync('sh', ['-c', `set -- ${commandLine}; printf '%s\\0' "$@"`], {
    encoding: 'utf8',
  });
  return words.split('\0').slice(0, -1);
}

const ODD = [
  '/tmp/Copy\'s "x" folder/manifest.csv',
  '/tmp/odd\nname $(echo hi) `x` \\ folder/manifest.csv',
  '/tmp/tab\there/*.csv',
];

describe('commands printed to paste', () => {
  it.each(ODD)(
    'a path with quotes, a line break, $(…), backquotes, globs or a tab comes back whole: %j',
    (path) => {
      expect(pasted(quoted(path))).toEqual([path]);
    },
  );

  it.each(['-7', '--confirm', 'HR 7', "O'Neil-1", 'RH-2026-0142'])(
    "a reference or id such as %j is read back as that option's value, even when it starts with a dash",
    (reference) => {
      const line = [
        'resolve',
        quoted(ODD[0]!),
        optionArg('--base-url', 'http://127.0.0.1:4010'),
        '--data-dir',
        quoted('/tmp/data dir'),
        optionArg('--reference', reference),
        optionArg('--link', reference),
      ].join(' ');
      const parsed = parseCliArgs(pasted(line));
      expect(parsed).toMatchObject({
        ok: true,
        value: { manifest: ODD[0], dataDir: '/tmp/data dir', reference, link: reference },
      });
    },
  );
});
