// The repository's format check (npm test, npm run format:check): Prettier over the project's
// files as git lists them (tracked, or new and not ignored), not over whatever lies in the
// working folder. A data folder the app or the command line created inside the checkout
// (`--data-dir ./my-data`) marks itself ignored, so its compact JSON never fails the check.
// Outside a git checkout (an unpacked archive) it checks the folder as Prettier sees it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const PRETTIER = 'node_modules/.bin/prettier';
const options = ['--check', '--ignore-unknown', '--log-level', 'warn'];
/** Files a command line carries at once, well under every system's argument limit. */
const BATCH = 400;

function prettier(paths) {
  // `--` first: a file named like an option (`--plugin=x.mjs`) is a file to check, never an
  // option that would load and run x.mjs.
  return spawnSync(PRETTIER, [...options, '--', ...paths], { stdio: 'inherit' }).status ?? 1;
}

const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
if (listed.status !== 0) process.exit(prettier(['.']));

// A file deleted in the working folder but not yet in git is not there to check.
const files = listed.stdout.split('\0').filter((path) => path !== '' && existsSync(path));
let status = 0;
for (let start = 0; start < files.length; start += BATCH) {
  const batchStatus = prettier(files.slice(start, start + BATCH));
  if (batchStatus !== 0) status = batchStatus;
}
process.exit(status);
