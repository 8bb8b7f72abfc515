/**
 * Type-checks every environment with its own tsconfig.json: the main process and the simulator
 * against Node without the DOM, the pages against the DOM without Node, the preload against both
 * (Electron's isolated world), and the tests, benchmarks and scripts. Side by side, one line each.
 */
import { spawn } from 'node:child_process';

export const ENVIRONMENTS = ['main', 'simulator', 'preload', 'renderer', '.'];

function check(project) {
  return new Promise((resolve) => {
    const child = spawn('tsc', ['-p', project, '--noEmit', '--pretty', 'false'], { shell: false });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (status) => resolve({ project, status: status ?? 1, output }));
  });
}

const results = await Promise.all(ENVIRONMENTS.map(check));
for (const { project, status, output } of results) {
  const where = project === '.' ? 'tsconfig.json (tests, benchmarks, scripts)' : `${project}/tsconfig.json`;
  console.log(`${status === 0 ? 'ok  ' : 'FAIL'} ${where}`);
  if (status !== 0) process.stdout.write(output);
}
process.exit(results.some(({ status }) => status !== 0) ? 1 : 0);
