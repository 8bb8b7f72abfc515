// The whole test suite, as CI runs it: types, lint, formatting, then every vitest suite.
// Ends with a plain "N passed, N failed, N skipped" line.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function step(name, command, args) {
  console.log(`\n== ${name}`);
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\n${name} failed.`);
    process.exit(result.status ?? 1);
  }
}

step('typecheck', 'tsc', ['-p', 'tsconfig.json', '--noEmit']);
step('lint', 'eslint', ['.', '--max-warnings', '0']);
step('format', 'prettier', ['--check', '.', '--log-level', 'warn']);

const reportDir = mkdtempSync(join(tmpdir(), 'desk-test-'));
const reportFile = join(reportDir, 'vitest.json');
console.log('\n== tests');
const tests = spawnSync(
  'vitest',
  [
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${reportFile}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
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
