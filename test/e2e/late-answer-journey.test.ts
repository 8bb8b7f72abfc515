/**
 * A late answer does not move the person: "Create batch" answered after they went elsewhere — the
 * batch list clicked again, as the browser-host journey did when it flaked, or Connections — leaves
 * them where they went, and the new batch is in the list. Main holds the call until the test
 * releases it, so "late" is an order of events, not a delay.
 */
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { launchApp, type App } from './app-harness';

let app: App | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

/** Asks for a batch from the list; main holds the call until `whileWaiting` is done, then answers it. */
async function createAnsweredLate(app: App, name: string, whileWaiting: () => Promise<void>): Promise<void> {
  const { page } = app;
  const held = app.holdNextCall('batches.create');
  await page.getByRole('button', { name: 'Batches', exact: true }).click();
  await page.getByLabel('New batch name').fill(name);
  await page.getByRole('button', { name: 'Create batch' }).click();
  await held.arrived;
  await whileWaiting();
  held.release();
  await held.answered;
  await answerReached(page);
}

/**
 * Returns once the page has handled every answer main gave so far and drawn a frame since: one
 * bridge carries the answers in order, so the answer to a call made now comes after them.
 */
async function answerReached(page: Page): Promise<void> {
  const answered = await page.evaluate(async () => {
    const info = await window.desk?.app.info();
    await new Promise((drawn) => requestAnimationFrame(drawn));
    return info?.ok === true;
  });
  expect(answered, 'a call through the bridge after the held one').toBe(true);
}

describe('an answer that comes after the person moved on', () => {
  it('"Create batch" answered after Batches was clicked again, or after Connections was opened, leaves the person there', async () => {
    app = await launchApp({ host: 'browser' });
    const { page } = app;
    const list = page.getByRole('heading', { name: 'Batches', level: 2 });

    // The journey's case: back to the list before the answer.
    await createAnsweredLate(app, 'Answered late', async () => {
      await page.getByRole('button', { name: 'Batches', exact: true }).click();
    });
    // Wherever it shows (in the list, or opened), then where: in the list.
    const inList = page.getByRole('button', { name: 'Answered late', exact: true });
    const opened = page.getByRole('heading', { name: 'Answered late', level: 2 });
    await inList.or(opened).waitFor();
    expect(await opened.count(), 'the new batch was opened').toBe(0);
    expect(await list.count(), 'still on the batch list').toBe(1);
    expect(await inList.count()).toBe(1);

    // Elsewhere altogether: Connections stays; the batch is in the list once the person goes there.
    await createAnsweredLate(app, 'Answered later', async () => {
      await page.getByRole('button', { name: 'Connections' }).click();
      await page.getByRole('heading', { name: 'Connections', level: 2 }).waitFor();
    });
    expect(
      await page.getByRole('heading', { name: 'Connections', level: 2 }).count(),
      'still on Connections',
    ).toBe(1);
    await page.getByRole('button', { name: 'Batches', exact: true }).click();
    await page.getByRole('button', { name: 'Answered later', exact: true }).waitFor();

    // Still there when the answer comes at once: the new batch opens, as before.
    await createAnsweredLate(app, 'Answered at once', async () => {});
    await page.getByRole('heading', { name: 'Answered at once', level: 2 }).waitFor();
    expect(app.callsToMain.filter((channel) => channel === 'batches.create')).toHaveLength(3);
  }, 60_000);
});
