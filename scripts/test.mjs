// The whole test suite, as CI runs it: types, lint, formatting, the build, then every vitest suite.
// Ends with a plain "N passed, N failed, N skipped" line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The full path of `command` on PATH, or undefined. */
function onPath(command) {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .map((folder) => join(folder, command))
    .find((path) => existsSync(path));
}

function step(name, command, args) {
  console.log(`\n== ${name}`);
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\n${name} failed.`);
    process.exit(result.status ?? 1);
  }
}

step('typecheck', 'tsc', ['-p', 'tsconfig.json', '--noEmit']);
// Browser code (renderer/, shared/) against the DOM alone: no Node types can slip in.
step('typecheck (browser code)', 'tsc', ['-p', 'tsconfig.browser.json', '--noEmit']);
step('lint', 'eslint', ['.', '--max-warnings', '0']);
step('format', 'prettier', ['--check', '.', '--log-level', 'warn']);
// The end-to-end journeys run the built app (renderer and browser host bundles).
step('build', 'node', ['scripts/build.mjs']);

const reportDir = mkdtempSync(join(tmpdir(), 'desk-test-'));
const reportFile = join(reportDir, 'vitest.json');
const vitestArgs = [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${reportFile}`,
  ...process.argv.slice(2),
];
console.log('\n== tests');
let tests;
if (process.env.DBUS_SESSION_BUS_ADDRESS) {
  tests = spawnSync('vitest', vitestArgs, { stdio: 'inherit' });
} else {
  // The keychain tests need a real Secret Service (ENGINEERING.md "Real parts in tests"): run
  // vitest inside a private D-Bus session with a GNOME Keyring unlocked by a throwaway password.
  // The keyring files go to a temporary folder, never to the user's own keyrings.
  const missing = ['dbus-run-session', 'gnome-keyring-daemon'].filter((command) => !onPath(command));
  if (missing.length > 0) {
    console.error(
      `\nThe keychain tests need ${missing.join(' and ')}, which ${missing.length > 1 ? 'are' : 'is'} not installed. ` +
        'Install them with: sudo apt-get install -y dbus gnome-keyring (or run npm run setup), then run npm test again.',
    );
    rmSync(reportDir, { recursive: true, force: true });
    process.exit(1);
  }
  const keyringHome = join(reportDir, 'keyring');
  tests = spawnSync(
    'dbus-run-session',
    [
      '--',
      'sh',
      '-c',
      'printf test | XDG_DATA_HOME="$DESK_TEST_KEYRING_HOME" gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"',
      'sh',
      'vitest',
      ...vitestArgs,
    ],
    { stdio: 'inherit', env: { ...process.env, DESK_TEST_KEYRING_HOME: keyringHome } },
  );
}
let summary = 'tests: no report written';
try {
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  summary = `tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests + report.numTodoTests} skipped`;
} catch {
  // The run crashed before writing its report; the exit status below says so.
}
rmSync(reportDir, { recursive: true, force: true });
console.log(`\n${summary}`);
process.exit(tests.status ?? 1);
