/**
 * The browser host's entry point (`node dist/browser-host/index.js`, run by `npm start` when
 * no Electron runtime is installed): the app's main process in Node, its window in Chromium.
 * For development and tests only; never packaged.
 */
import { createJsonLogger } from '../base/log';
import { HOST_USAGE, parseHostArgs } from './host-args';
import { launchBrowserHost, type LaunchedBrowserHost } from './launch';

const parsed = parseHostArgs(process.argv.slice(2));
if (!parsed.ok) {
  console.error(`browser host: ${parsed.error}\n\n${HOST_USAGE}`);
  process.exit(2);
}
if (parsed.value.help) {
  console.log(HOST_USAGE);
  process.exit(0);
}
const { port, dataDir, open } = parsed.value;

const logger = createJsonLogger((line) => process.stderr.write(line));
let launched: LaunchedBrowserHost;
try {
  launched = await launchBrowserHost({ dataDir, port, logger });
} catch (error) {
  console.error(`browser host: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

let stopping = false;
// SIGHUP: the terminal that ran the host was closed; its windows and their folders go too.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    // A second Ctrl+C while closing means "now".
    if (stopping) process.exit(130);
    stopping = true;
    console.log('browser host: stopping…');
    launched.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(
          `browser host: could not stop cleanly: ${error instanceof Error ? error.message : String(error)}`,
        );
        process.exit(1);
      },
    );
  });
}

// The address carries this launch's loopback secret: printed for this user's terminal only.
console.log(`Browser host on ${launched.origin} — open this address:\n${launched.url}`);
console.log(`Data folder: ${dataDir}. Stop with Ctrl+C.`);

if (open && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
  console.log('browser host: no display here, so no window was opened. Open the address above in a browser.');
} else if (open) {
  try {
    const window = await launched.openWindow();
    void window.exited.then(() => {
      if (!stopping)
        console.log('browser host: the window was closed; the app keeps running (Ctrl+C to stop).');
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    console.log(`browser host: no window was opened (${reason}) Open the address above in a browser.`);
  }
}
