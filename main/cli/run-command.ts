/** The command line (README "Command line reference"): the same core as the desktop app, without a window. */
import { parseCliArgs } from './cli-args';
import type { CommandTuning } from './cli-connection';
import { EXIT, processOutput, streamOutput, type OutputStreams } from './cli-output';
import { statusCommand, validateCommand } from './commands';
import { watchCommand } from './watch-command';
import { resolveCommand } from './resolve-command';
import { sendCommand } from './send-command';

/**
 * Runs the command `argv` names and returns its exit code. It writes to the process's streams
 * unless given others: tests run it in their own process on a virtual clock (`tuning`).
 */
export async function runCommand(
  argv: readonly string[],
  streams?: OutputStreams,
  tuning: CommandTuning = {},
): Promise<number> {
  const parsed = parseCliArgs(argv);
  const outputFor = (json: boolean) => (streams ? streamOutput(json, streams) : processOutput(json));
  if (!parsed.ok) {
    // Asked for, the usage goes to standard output with success; a mistake, to errors.
    if (parsed.error.help) {
      outputFor(false).say(parsed.error.message);
      return EXIT.ok;
    }
    outputFor(parsed.error.json).error(parsed.error.message);
    return EXIT.badInput;
  }
  const args = parsed.value;
  const out = outputFor(args.json);
  switch (args.command) {
    case 'validate':
      return validateCommand(args, out);
    case 'send':
      return sendCommand(args, out, tuning);
    case 'resolve':
      return resolveCommand(args, out, tuning);
    case 'status':
      return statusCommand(args, out);
    case 'watch':
      return watchCommand(args, out, tuning);
  }
}
