import { runCommand } from './run-command';

process.exitCode = await runCommand(process.argv.slice(2));
