// Sets up a fresh machine for development and tests: Debian packages the tests need (when
// running as root, as CI does; otherwise prints the command), the npm dependencies, and the
// Electron runtime when it can be downloaded. Runs with any Node; installs its own Node 24.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * Debian packages the test suite uses, each with a file that proves it is present. They are
 * installed before `npm ci`, which builds keytar's native module against libsecret.
 */
const SYSTEM_PACKAGES = [
  // keytar: the libsecret headers, and node-gyp's toolchain for when no prebuilt binary can be downloaded.
  { name: 'libsecret-1-dev', probe: '/usr/include/libsecret-1/libsecret/secret.h' },
  { name: 'pkg-config', probe: '/usr/bin/pkg-config' },
  { name: 'g++', probe: '/usr/bin/g++' },
  { name: 'make', probe: '/usr/bin/make' },
  { name: 'python3', probe: '/usr/bin/python3' },
  // The real Secret Service of the keychain tests: a private D-Bus session (dbus-run-session) with GNOME Keyring.
  { name: 'dbus', probe: '/usr/bin/dbus-run-session' },
  // Listed before gnome-keyring: it satisfies gnome-keyring's need for a session bus package
  // without pulling in systemd (dbus-user-session); the tests never call dbus-launch itself.
  { name: 'dbus-x11', probe: '/usr/bin/dbus-launch' },
  { name: 'gnome-keyring', probe: '/usr/bin/gnome-keyring-daemon' },
  // The browser of the end-to-end tests (Playwright drives it with executablePath).
  { name: 'chromium', probe: '/usr/bin/chromium' },
  // GLib's desktop-entry reader: the autostart entry is launched by `gio launch` in the tests.
  { name: 'libglib2.0-bin', probe: '/usr/bin/gio' },
  // A display for the real-Electron journey on machines without one (CI, servers).
  { name: 'xvfb', probe: '/usr/bin/Xvfb' },
];

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  return result.status === 0;
}

function missingPackages() {
  return SYSTEM_PACKAGES.filter(({ probe }) => !existsSync(probe)).map(({ name }) => name);
}

const missing = missingPackages();
if (missing.length > 0) {
  const isRoot = process.getuid?.() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    console.log(`setup: installing Debian packages: ${missing.join(' ')}`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (
      !run('apt-get', ['update', '-q'], { env }) ||
      !run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...missing], { env })
    ) {
      console.error('setup: apt-get failed; see above.');
      process.exit(1);
    }
  } else {
    console.error(`setup: these system packages are missing: ${missing.join(' ')}`);
    console.error(`setup: install them with: sudo apt-get install -y ${missing.join(' ')}`);
    process.exit(1);
  }
}

/**
 * `npm ci`, with npm's engine warnings left out when they only say that the Node running npm is
 * older than the project's: npm checks each package's "engines" against the Node that runs it
 * (this machine's, often 20), while the project brings and runs on its own Node 24 (the `node`
 * package this same install fetches). Every other line npm prints passes through unchanged.
 */
async function installDependencies() {
  const ownNodeMajor = Number(process.versions.node.split('.')[0]);
  const quietEngines = ownNodeMajor < 24;
  const child = spawn('npm', ['ci', '--no-audit', '--no-fund'], {
    stdio: ['inherit', 'inherit', quietEngines ? 'pipe' : 'inherit'],
  });
  let engineWarnings = 0;
  if (quietEngines) {
    const lines = createInterface({ input: child.stderr });
    lines.on('line', (line) => {
      if (line.startsWith('npm warn EBADENGINE')) {
        if (line.includes('Unsupported engine')) engineWarnings += 1;
        return;
      }
      process.stderr.write(`${line}\n`);
    });
  }
  const status = await new Promise((resolveStatus) => child.on('close', resolveStatus));
  if (engineWarnings > 0) {
    console.log(
      `setup: npm ran on this machine's Node ${process.versions.node}; ${engineWarnings} packages ask for a newer one, which the project brings (Node 24, run by every npm script), so npm's engine warnings are not shown.`,
    );
  }
  return status === 0;
}

console.log('setup: installing npm dependencies (npm ci)');
if (!(await installDependencies())) process.exit(1);

// Electron downloads its runtime on first use; try now, within a bound, so `npm start` knows.
console.log('setup: fetching the Electron runtime (optional)');
const electron = spawnSync('node_modules/.bin/node', ['node_modules/electron/install.js'], {
  stdio: 'pipe',
  timeout: 180_000,
});
if (electron.status === 0) {
  console.log('setup: Electron runtime installed; `npm start` opens the desktop app.');
} else {
  console.log(
    'setup: the Electron runtime cannot be downloaded here; the desktop app runs in the browser host and the real-Electron tests are skipped.',
  );
}
console.log('setup: done');
