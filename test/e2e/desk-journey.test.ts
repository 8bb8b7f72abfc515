/** The journeys in Chromium through the browser host, against the simulator over loopback. */
import { afterEach, describe, expect, it } from 'vitest';
import { launchApp, type App } from './app-harness';
import { JOURNEYS } from './journeys';

let app: App | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

describe('the desk, end to end in Chromium through the browser host', () => {
  for (const journey of JOURNEYS) {
    it(
      journey.name,
      async () => {
        app = await launchApp({ host: 'browser' });
        await journey.run(app);
      },
      journey.timeoutMs,
    );
  }
});
