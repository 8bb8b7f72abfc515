// The whole test suite, as CI runs it: types, lint, formatting, the build, then the four layers of
// tests (vitest.config.ts: unit, integration, system, browser), one after the other. Ends with a
// plain "N passed, N failed, N skipped" line.
//
// `--quick` (npm run test:quick): the unit and integration layers only, for the edit loop.
// Any other arguments are passed to vitest instead of the layers (a file, a test name filter).
import { spawn, spawnSync } from 'node:child_process';
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

/**
 * Runs the static checks side by side (they are independent, and each alone leaves a core idle),
 * printing each one's output whole once it ends; exits when one failed.
 */
async function checksSideBySide(checks) {
  const outcomes = await Promise.all(
    checks.map(
      ([name, command, args]) =>
        new Promise((resolveCheck) => {
          const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
          let output = '';
          child.stdout.on('data', (chunk) => (output += chunk));
          child.stderr.on('data', (chunk) => (output += chunk));
          child.on('error', (error) =>
            resolveCheck({ name, status: 1, output: `${output}${error.message}\n` }),
          );
          child.on('close', (status) => resolveCheck({ name, status: status ?? 1, output }));
        }),
    ),
  );
  for (const { name, status, output } of outcomes) {
    console.log(`\n== ${name}${status === 0 ? '' : ' (failed)'}`);
    if (output.trim() !== '') process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
  }
  const failed = outcomes.filter(({ status }) => status !== 0);
  if (failed.length > 0) {
    console.error(`\n${failed.map(({ name }) => name).join(', ')} failed.`);
    process.exit(failed[0].status);
  }
}

const quick = process.argv.includes('--quick');
const only = process.argv.slice(2).filter((argument) => argument !== '--quick');
if (!quick) {
  await checksSideBySide([
    // Each environment against its own libraries: main/ without the DOM, the pages without Node.
    ['typecheck', 'node', ['scripts/typecheck.mjs']],
    ['lint', 'eslint', ['.', '--max-warnings', '0']],
    ['format', 'node', ['scripts/format-check.mjs']],
  ]);
  // The end-to-end journeys run the built app (renderer and browser host bundles).
  step('build', 'node', ['scripts/build.mjs']);
}

const reportDir = mkdtempSync(join(tmpdir(), 'desk-test-'));

/**
 * One vitest run with a real Secret Service: inside a private D-Bus session with a GNOME Keyring
 * unlocked by a throwaway password (README "Tests"), unless one is already
 * there. The keyring files go to a temporary folder, never to the user's own keyrings. Returns
 * the exit status and the counts of the run's JSON report.
 */
function runVitest(name, args) {
  const reportFile = join(reportDir, `${name}.json`);
  const vitestArgs = [
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${reportFile}`,
    ...args,
  ];
  let run;
  if (process.env.DBUS_SESSION_BUS_ADDRESS) {
    run = spawnSync('vitest', vitestArgs, { stdio: 'inherit' });
  } else {
    const missing = ['dbus-run-session', 'gnome-keyring-daemon'].filter((command) => !onPath(command));
    if (missing.length > 0) {
      console.error(
        `\nThe keychain tests need ${missing.join(' and ')}, which ${missing.length > 1 ? 'are' : 'is'} not installed. ` +
          'Install them with: sudo apt-get install -y dbus gnome-keyring (or run npm run setup), then run npm test again.',
      );
      rmSync(reportDir, { recursive: true, force: true });
      process.exit(1);
    }
    run = spawnSync(
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
      {
        stdio: 'inherit',
        env: { ...process.env, DESK_TEST_KEYRING_HOME: join(reportDir, `${name}-keyring`) },
      },
    );
  }
  let counts;
  let failures = [];
  try {
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    counts = {
      passed: report.numPassedTests,
      failed: report.numFailedTests,
      skipped: report.numPendingTests + report.numTodoTests,
    };
    failures = failuresOf(report);
  } catch {
    // The run crashed before writing its report; its exit status says so.
  }
  return { name, status: run.status ?? 1, counts, failures };
}

/** The first line of a failure message, cut to a readable length. */
function firstLine(message, fallback = '(no message: see the output above)') {
  const line =
    String(message ?? '')
      .split('\n')
      .find((text) => text.trim() !== '') ?? fallback;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/**
 * Each failed test of a vitest JSON report as "file > test: first line of its message", and each
 * file that failed to run at all. CI shows only the end of a run's output; this list is the end.
 */
function failuresOf(report) {
  const cwd = `${process.cwd()}/`;
  return report.testResults.flatMap((file) => {
    const name = file.name.startsWith(cwd) ? file.name.slice(cwd.length) : file.name;
    const failed = file.assertionResults
      .filter((test) => test.status === 'failed')
      .map((test) => `${name} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    // The file's own error (an import, a hook): alone, or beside the failed tests it explains.
    if (file.status === 'failed' && (failed.length === 0 || file.message))
      failed.push(
        `${name}: ${firstLine(file.message, 'failed outside its tests (a hook, or its import): see the output above')}`,
      );
    return failed;
  });
}

/** `--project` arguments for vitest. */
const layers = (...names) => names.flatMap((name) => ['--project', name]);
// Beyond the named service variants, every run plays one drawn from a seed, printed so that a
// failure can be replayed (README, "Sending exactly once", "What is tested"), so the suites meet a
// service nobody chose by hand.
if (process.env.SIM_VARIANT_SEED === undefined) {
  process.env.SIM_VARIANT_SEED = String(Math.floor(Math.random() * 1_000_000));
}
console.log(
  `\n== service variant of this run: seeded-${process.env.SIM_VARIANT_SEED} ` +
    `(replay it: SIM_VARIANT_SEED=${process.env.SIM_VARIANT_SEED} npm test)`,
);
let runs;
if (only.length > 0) {
  console.log('\n== tests');
  runs = [runVitest('tests', only)];
} else if (quick) {
  console.log('\n== tests: unit, integration');
  runs = [runVitest('tests', layers('unit', 'integration'))];
} else {
  console.log('\n== tests: unit, integration, system, browser');
  runs = [runVitest('tests', layers('unit', 'integration', 'system', 'browser'))];
}
rmSync(reportDir, { recursive: true, force: true });
const failures = runs.flatMap((run) => run.failures);
// A run can fail with no failed test in its report: an unhandled error (vitest's JSON report
// leaves those out), or a crash before the report was written.
for (const run of runs) {
  if (run.status !== 0 && run.failures.length === 0)
    failures.push(
      `${run.name}: exit ${run.status}, no failed test in its report (an unhandled error or a crash: see the output above)`,
    );
}
if (failures.length > 0) {
  console.log(`\n== failed (service variant of this run: seeded-${process.env.SIM_VARIANT_SEED})`);
  for (const failure of failures) console.log(`- ${failure}`);
}
const counted = runs.every((run) => run.counts !== undefined);
const total = (key) => runs.reduce((sum, run) => sum + (run.counts?.[key] ?? 0), 0);
console.log(
  counted
    ? `\ntests: ${total('passed')} passed, ${total('failed')} failed, ${total('skipped')} skipped`
    : '\ntests: no report written',
);
process.exit(runs.find((run) => run.status !== 0)?.status ?? 0);
