// `npm start`: builds the app, then opens it in Electron when the runtime is installed, or in
// the browser host otherwise (saying which). With no connection configured, the app offers
// the built-in service simulator as a demo connection.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

function electronBinary() {
  const pathFile = join('node_modules', 'electron', 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join('node_modules', 'electron', 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

const build = spawnSync('node', ['scripts/build.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const electron = electronBinary();
// Chromium refuses to run as root with its sandbox on; a desktop session is not root, a container may be.
const asRoot = process.getuid?.() === 0;
if (electron && asRoot)
  console.log(
    'start: running as root, so Electron starts with --no-sandbox (run as a normal user to keep it).',
  );
const [command, args, host] = electron
  ? [electron, ['.', ...(asRoot ? ['--no-sandbox'] : []), ...process.argv.slice(2)], 'Electron']
  : [
      'node',
      ['dist/browser-host/index.js', ...process.argv.slice(2)],
      'the browser host (no Electron runtime here)',
    ];
console.log(`start: running the app in ${host}`);
const child = spawn(command, args, { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
