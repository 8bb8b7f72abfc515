import { describe, expect, it } from 'vitest';
import { runCommand } from '../../../main/cli/run-command';

/** `--help` is a question, answered on standard output with success; a bare call is a mistake. */
async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCommand(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

describe('the command line’s usage', () => {
  it.each([['--help'], ['-h'], ['send', '--help']])(
    '%s prints it to standard output and exits 0',
    async (...argv) => {
      const answer = await run(argv);
      expect(answer).toMatchObject({ code: 0, stderr: '' });
      expect(answer.stdout).toMatch(/validate MANIFEST/);
    },
  );

  it('without a command, prints it as an error and exits 2', async () => {
    const answer = await run([]);
    expect(answer).toMatchObject({ code: 2, stdout: '' });
    expect(answer.stderr).toMatch(/validate MANIFEST/);
  });
});
