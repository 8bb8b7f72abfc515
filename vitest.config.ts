import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The four layers of tests (README "Tests"), each a vitest project:
 *
 * - unit: rules without I/O (no network, no files, no keychain), in milliseconds.
 * - integration: the app's parts in this process against real things on loopback and disk: the
 *   simulator over HTTP, the data folder's files, the OS keychain. On one virtual clock
 *   (main/time/virtual-clock.ts) wherever time matters, so they never wait for a duration.
 * - system: child processes (the command line, the simulator's own command, the browser host's
 *   entry), the data folder's lock between processes, crash and power-cut suites. Real time.
 * - browser: journeys in real Chromium through the browser host, and the real-Electron journey.
 *
 * `npm run test:quick` runs unit and integration; `npm test` runs all four in two groups, one
 * after the other: unit and integration together (4 workers: they run on virtual time and mostly
 * wait on loopback and disk), then system and browser together (4 workers: the system suites
 * mostly wait on child processes and a shaped line while the journeys keep the cores busy).
 * Vitest runs projects of one `sequence.groupOrder` side by side; they must share a worker count.
 */

/** Pure rules under test/main: no simulator, no files, no keychain. */
const UNIT_IN_MAIN = [
  'test/main/app/batch-views.test.ts',
  'test/main/app/signed-notification.test.ts',
  'test/main/engine/call-slots.test.ts',
  'test/main/client/transport-rules.test.ts',
  'test/main/client/transport-outcomes.test.ts',
  'test/main/browser-host/attack-clock-jumps.test.ts',
  'test/main/browser-host/call-ledger.test.ts',
  'test/main/domain/document-class.test.ts',
  'test/main/files/pdf-header.test.ts',
  'test/main/domain/people-of.test.ts',
  'test/main/engine/slow-calls.test.ts',
  'test/main/domain/step-machine.test.ts',
  'test/main/engine/upload-progress.test.ts',
  'test/main/cli/cli-args.test.ts',
  'test/main/cli/help.test.ts',
  'test/main/cli/engine-narrator.test.ts',
  'test/main/credentials/keychain-watch.test.ts',
  'test/main/report/report-csv.test.ts',
  'test/main/report/report-times.test.ts',
  'test/main/manifest/spreadsheet-rows.test.ts',
  'test/main/report/report-file-name.test.ts',
  'test/main/shell/ipc-bridge.test.ts',
  'test/main/shell/main-window.test.ts',
  'test/main/shell/security.test.ts',
  'test/main/tracking/due-queue.test.ts',
  'test/main/tracking/poller-reorder.test.ts',
];

const UNIT = [
  'test/shared/**/*.test.ts',
  'test/renderer/**/*.test.{ts,tsx}',
  'test/preload/**/*.test.ts',
  'test/lint/**/*.test.ts',
  ...UNIT_IN_MAIN,
];

/** Child processes, the lock between processes, crashes and power cuts. */
const SYSTEM = [
  // The command line, run as the user runs it: a child process per command.
  'test/main/cli/**/*.test.ts',
  'test/main/credentials/cli-profile.test.ts',
  'test/main/store/data-dir-lock.test.ts',
  // git and the format check, run in a scratch checkout.
  'test/main/store/data-folder-marker.test.ts',
  // A synchronous read stuck on a planted FIFO freezes its thread: those run in a child.
  'test/main/store/own-data-files.test.ts',
  'test/main/engine/power-cut-send.test.ts',
  'test/main/engine/participants-crash.test.ts',
  // A real shaped line and the kernel's own send buffers: its point is real time.
  'test/main/engine/uplink-review.test.ts',
  // The desktop's own reader (GLib's gio) launching the autostart entry.
  'test/main/shell/login-item-glib.test.ts',
  'test/main/browser-host/host-entry.test.ts',
  'test/main/browser-host/app-window.test.ts',
  'test/simulator/cli.test.ts',
  'test/bad-input/*.test.ts',
];

/** Real Chromium (and Electron when its runtime is there). */
const BROWSER = [
  'test/e2e/**/*.test.ts',
  'test/main/browser-host/bridge-in-chromium.test.ts',
  'test/main/browser-host/browser-host-journey.test.ts',
  'test/main/browser-host/chromium-ceremony-opener.test.ts',
  'test/main/browser-host/host-connection-banner.test.ts',
];

function layer(
  name: string,
  include: string[],
  exclude: string[],
  groupOrder: number,
  maxWorkers: number,
): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: { name, include, exclude, sequence: { groupOrder }, maxWorkers },
  };
}

export default defineConfig({
  // As in `npm start`'s build: development hosts may offer the built-in simulator.
  define: { DESK_DEVELOPMENT_BUILD: 'true' },
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      layer('unit', UNIT, [], 0, 4),
      layer(
        'integration',
        ['test/main/**/*.test.ts', 'test/simulator/**/*.test.ts', 'test/model/**/*.test.ts'],
        [...UNIT_IN_MAIN, ...SYSTEM, ...BROWSER],
        0,
        4,
      ),
      layer('system', SYSTEM, UNIT_IN_MAIN, 1, 4),
      layer('browser', BROWSER, [], 1, 4),
    ],
  },
});
