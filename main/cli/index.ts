import { parseCliArgs } from './cli-args';
import { EXIT, processOutput } from './cli-output';
import { statusCommand, validateCommand } from './commands';
import { watchCommand } from './watch-command';
import { resolveCommand } from './resolve-command';
import { sendCommand } from './send-command';

/** The command line of PRODUCT.md: the same core as the desktop app, without a window. */
async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseCliArgs(argv);
  if (!parsed.ok) {
    processOutput(parsed.json).error(parsed.message);
    return EXIT.badInput;
  }
  const out = processOutput(parsed.args.json);
  switch (parsed.args.command) {
    case 'validate':
      return validateCommand(parsed.args, out);
    case 'send':
      return sendCommand(parsed.args, out);
    case 'resolve':
      return resolveCommand(parsed.args, out);
    case 'status':
      return statusCommand(parsed.args, out);
    case 'watch':
      return watchCommand(parsed.args, out);
  }
}

process.exitCode = await main(process.argv.slice(2));
