/**
 * What the renderer benchmark measures inside the app's page. Every time is taken in the page
 * with `performance.now()` and `requestAnimationFrame`, so Playwright's round trips never count.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';

/** The scroll region of the document table, and one document row in it. */
const TABLE = '.table-scroll[role="region"]';
const FIRST_ROW = `${TABLE} tbody tr[data-index="0"]`;
const WAIT_LIMIT_MS = 60_000;
/** Wheel events between two looks at the table's scroll position. */
const POSITION_EVERY_EVENTS = 8;

/**
 * tsx (esbuild with names kept) wraps named functions in `__name(…)`; functions handed to
 * `page.evaluate` run in the page, where that helper must exist too.
 */
export async function allowBundledFunctions(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: 'globalThis.__name ??= (fn) => fn;' });
}

/** One opening of the batch, from the click on its name. */
export interface FirstRender {
  /** Until the first document row is in the DOM (React committed it). */
  readonly inDomMs: number;
  /** Until the frame holding it is painted (two animation frames later). */
  readonly paintedMs: number;
  /** Document rows (`tr[data-index]`) in the DOM once painted. */
  readonly documentRows: number;
  /** Every `<tr>` of the table: header, spacers and document rows. */
  readonly tableRows: number;
  /** What `aria-rowcount` announces: every document plus the header. */
  readonly ariaRowCount: number;
  /** Whether the table is the compact one (one line a document), not the detailed one. */
  readonly compact: boolean;
}

/** Waits until the batches list shows the batch's name. */
export async function waitForBatchesList(page: Page, batchName: string): Promise<void> {
  await page
    .locator('section[aria-labelledby="batches-title"]')
    .getByRole('button', { name: batchName, exact: true })
    .waitFor({ timeout: WAIT_LIMIT_MS });
}

/** Back to the batches list through the main navigation; the batch screen unmounts. */
export async function backToBatches(page: Page, batchName: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Batches' }).click();
  await waitForBatchesList(page, batchName);
  await page.locator(FIRST_ROW).waitFor({ state: 'detached', timeout: WAIT_LIMIT_MS });
}

/**
 * Clicks the batch's name in the batches list and times, in the page, until its first
 * document row is in the DOM (a MutationObserver) and then painted (a double animation frame).
 */
export function openBatchTimed(page: Page, batchName: string): Promise<FirstRender> {
  return page.evaluate(
    ({ name, table, firstRow, limitMs }) =>
      new Promise<FirstRender>((resolve, reject) => {
        const button = [
          ...document.querySelectorAll<HTMLButtonElement>('section[aria-labelledby="batches-title"] button'),
        ].find((candidate) => candidate.textContent === name);
        if (!button) {
          reject(new Error(`no button named ${name} in the batches list`));
          return;
        }
        if (document.querySelector(firstRow)) {
          reject(new Error('a document row is already shown before the click'));
          return;
        }
        let started = 0;
        let inDom = 0;
        const observer = new MutationObserver(() => check());
        const timer = window.setTimeout(() => {
          observer.disconnect();
          reject(new Error(`the first document row did not appear within ${limitMs} ms`));
        }, limitMs);
        const painted = () => {
          const paintedAt = performance.now();
          window.clearTimeout(timer);
          const region = document.querySelector(table);
          resolve({
            inDomMs: inDom - started,
            paintedMs: paintedAt - started,
            documentRows: region?.querySelectorAll('tbody tr[data-index]').length ?? 0,
            tableRows: region?.querySelectorAll('tr').length ?? 0,
            ariaRowCount: Number(region?.querySelector('table')?.getAttribute('aria-rowcount') ?? 0),
            compact: region?.querySelector('table')?.classList.contains('compact') ?? false,
          });
        };
        const check = () => {
          if (inDom !== 0 || !document.querySelector(firstRow)) return;
          inDom = performance.now();
          observer.disconnect();
          // The first frame's callback runs before its paint; the second's after it.
          requestAnimationFrame(() => requestAnimationFrame(painted));
        };
        observer.observe(document.body, { childList: true, subtree: true });
        started = performance.now();
        button.click();
        check();
      }),
    { name: batchName, table: TABLE, firstRow: FIRST_ROW, limitMs: WAIT_LIMIT_MS },
  );
}

/** Every frame of one scroll of the table with the mouse wheel, top to bottom and back. */
export interface ScrollRun {
  /** Time between consecutive animation frames while scrolling (ms). */
  readonly frameMs: readonly number[];
  /**
   * For each of `frameMs`, whether the table's scroll position changed between its two
   * frames: a frame that had rows to bring in. The wheel events come over Playwright's round
   * trips, so many frames between two of them have nothing to do.
   */
  readonly movedFrames: readonly boolean[];
  readonly durationMs: number;
  /** Frames of the way down (the others are the way back up). */
  readonly downFrames: number;
  /** Pixels scrolled, down and up together. */
  readonly distancePx: number;
  /**
   * Frames at which the table moved against the wheel (up while scrolling down, or down while
   * scrolling up), and how far in all: a virtualized list that corrects its scroll position as
   * it measures rows must not fight the user.
   */
  readonly adjustedFrames: number;
  readonly adjustedPx: number;
  /** Wheel events sent (one per frame or so, like a fast flick of a wheel or touchpad). */
  readonly wheelEvents: number;
  /** Scroll height of the table at the bottom (rows measured by then). */
  readonly scrollHeightPx: number;
  /** Most document rows in the DOM at any sampled frame. */
  readonly maxDocumentRows: number;
  /** Whether the last document's row was rendered at the bottom. */
  readonly reachedLast: boolean;
  /** Long tasks (over 50 ms on the main thread) the page reported during the scroll. */
  readonly longTasks: number;
  readonly longestTaskMs: number;
}

interface Recorder {
  frameMs: number[];
  moved: boolean[];
  scrollTops: number[];
  longTasks: number[];
  maxRows: number;
  reachedLast: boolean;
  stop: boolean;
  /** While the bench jumps the table towards its end: frames are not counted. */
  paused: boolean;
  started: number;
  last: number;
}

/**
 * Scrolls the table's region with real mouse-wheel input (Chromium's input pipeline, as a user's
 * wheel or touchpad), `stepPx` per event, from the top to the bottom and back, while the page
 * records each animation frame's time and the scroll position. A table longer than
 * `flickEvents` events is flicked that far down, then jumped (uncounted) to `flickEvents / 4`
 * events before its end and flicked to the bottom, then flicked `flickEvents` events back up:
 * thousands of rows are measured without minutes of wheel events.
 */
export async function scrollTimed(
  page: Page,
  stepPx: number,
  lastIndex: number,
  flickEvents = Number.POSITIVE_INFINITY,
): Promise<ScrollRun & { readonly jumpedPx: number }> {
  const region = page.locator(TABLE);
  await region.evaluate((element) => {
    element.scrollTop = 0;
  });
  const box = await region.boundingBox();
  if (!box) throw new Error('the document table is not shown');
  await page.mouse.move(box.x + box.width / 2, box.y + Math.min(box.height / 2, 300));
  await page.evaluate(
    ({ table, last }) => {
      const element = document.querySelector<HTMLElement>(table);
      if (!element) throw new Error('the document table is not shown');
      const recorder: Recorder = {
        frameMs: [],
        moved: [],
        scrollTops: [],
        longTasks: [],
        maxRows: 0,
        reachedLast: false,
        stop: false,
        paused: false,
        started: 0,
        last: 0,
      };
      (window as unknown as { deskScroll: Recorder }).deskScroll = recorder;
      try {
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) recorder.longTasks.push(entry.duration);
        }).observe({ type: 'longtask' });
      } catch {
        // No long-task timing in this browser: the count stays 0.
      }
      let previous: number | undefined;
      let frames = 0;
      const frame = (now: number) => {
        if (recorder.stop) return;
        if (recorder.paused) {
          previous = undefined;
          requestAnimationFrame(frame);
          return;
        }
        if (recorder.started === 0) recorder.started = now;
        const top = element.scrollTop;
        if (previous !== undefined) {
          recorder.frameMs.push(now - previous);
          recorder.moved.push(top !== recorder.scrollTops.at(-1));
        }
        previous = now;
        recorder.last = now;
        recorder.scrollTops.push(top);
        frames += 1;
        if (frames % 8 === 0) {
          recorder.maxRows = Math.max(
            recorder.maxRows,
            element.querySelectorAll('tbody tr[data-index]').length,
          );
          if (element.querySelector(`tbody tr[data-index="${last}"]`)) recorder.reachedLast = true;
        }
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    },
    { table: TABLE, last: lastIndex },
  );

  const position = () =>
    region.evaluate((element) => ({
      top: element.scrollTop,
      bottom: element.scrollHeight - element.clientHeight,
      height: element.scrollHeight,
    }));
  const started = Date.now();
  let wheelEvents = 0;
  let downFrames = 0;
  let scrollHeight = 0;
  let jumpedPx = 0;
  for (const direction of [1, -1] as const) {
    let events = 0;
    for (;;) {
      if (Date.now() - started > WAIT_LIMIT_MS * 10) throw new Error('the scroll did not finish in time');
      if (direction === 1 && events === flickEvents) {
        const setRecording = (paused: boolean) =>
          page.evaluate((value) => {
            (window as unknown as { deskScroll: Recorder }).deskScroll.paused = value;
          }, paused);
        await setRecording(true);
        jumpedPx = await region.evaluate(
          (element, before) => {
            const from = element.scrollTop;
            element.scrollTop = Math.max(from, element.scrollHeight - element.clientHeight - before);
            return element.scrollTop - from;
          },
          (flickEvents / 4) * stepPx,
        );
        await page.waitForTimeout(300);
        await setRecording(false);
      }
      if (direction === -1 && events === flickEvents) break;
      await page.mouse.wheel(0, direction * stepPx);
      wheelEvents += 1;
      events += 1;
      // About one event a frame, as a fast flick would send.
      await page.waitForTimeout(12);
      // The position is asked for every few events: each question is a round trip that would
      // slow the flick (a batch of 10,000 is thousands of events long).
      if (wheelEvents % POSITION_EVERY_EVENTS !== 0) continue;
      const now = await position();
      if (direction === 1 && now.top >= now.bottom - 1) {
        scrollHeight = now.height;
        downFrames = await page.evaluate(
          () => (window as unknown as { deskScroll: Recorder }).deskScroll.frameMs.length,
        );
        break;
      }
      if (direction === -1 && now.top <= 0) break;
    }
    // Let the last event's scroll and rendering land.
    await page.waitForTimeout(200);
  }
  const recorded = await page.evaluate(
    ({ table, last }) => {
      const recorder = (window as unknown as { deskScroll: Recorder }).deskScroll;
      recorder.stop = true;
      const element = document.querySelector<HTMLElement>(table);
      if (element?.querySelector(`tbody tr[data-index="${last}"]`)) recorder.reachedLast = true;
      return recorder;
    },
    { table: TABLE, last: lastIndex },
  );
  // Movement against the wheel, frame by frame: up during the way down, down on the way back up.
  let adjustedFrames = 0;
  let adjustedPx = 0;
  let distance = 0;
  recorded.scrollTops.forEach((top, index) => {
    const before = recorded.scrollTops[index - 1];
    if (before === undefined) return;
    const moved = top - before;
    distance += Math.abs(moved);
    const goingDown = index <= downFrames;
    if ((goingDown && moved < -2) || (!goingDown && moved > 2)) {
      adjustedFrames += 1;
      adjustedPx += Math.abs(moved);
    }
  });
  return {
    frameMs: recorded.frameMs,
    movedFrames: recorded.moved,
    durationMs: recorded.last - recorded.started,
    downFrames,
    distancePx: distance - jumpedPx,
    jumpedPx,
    adjustedFrames,
    adjustedPx,
    wheelEvents,
    scrollHeightPx: scrollHeight,
    maxDocumentRows: recorded.maxRows,
    reachedLast: recorded.reachedLast,
    longTasks: recorded.longTasks.length,
    longestTaskMs: Math.max(0, ...recorded.longTasks),
  };
}

/** Chromium's own counters of the page, through the DevTools protocol. */
export interface PageMetrics {
  readonly jsHeapUsedBytes: number;
  readonly jsHeapTotalBytes: number;
  readonly domNodes: number;
}

export async function pageMetrics(cdp: CDPSession, collectGarbage: boolean): Promise<PageMetrics> {
  if (collectGarbage) await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const value = (name: string) => metrics.find((metric) => metric.name === name)?.value ?? Number.NaN;
  return {
    jsHeapUsedBytes: value('JSHeapUsedSize'),
    jsHeapTotalBytes: value('JSHeapTotalSize'),
    domNodes: value('Nodes'),
  };
}

/** One keystroke in the batch screen's search box. */
export interface Keystroke {
  /** The key as Playwright names it (`4`, `Backspace`). */
  readonly key: string;
  /** Documents the table shows once the search has this keystroke. */
  readonly expectedRows: number;
}

/** How long one keystroke took to show in the table. */
export interface KeystrokeTiming {
  readonly key: string;
  readonly rows: number;
  /** From the key's `keydown` to the table announcing the filtered rows (`aria-rowcount`) in the DOM. */
  readonly inDomMs: number;
  /** …then painted (two animation frames later). */
  readonly paintedMs: number;
}

const SEARCH = 'input[type="search"]';

/**
 * Types `keys` one at a time into the batch screen's search box (real key events through
 * Chromium) and times each in the page: from its `keydown` until the table holds the filtered
 * rows (its `aria-rowcount`, every shown document plus the header, says `expectedRows + 1` and a
 * first row is drawn, or none when nothing matches) and that frame is painted.
 */
export async function typeSearchTimed(page: Page, keys: readonly Keystroke[]): Promise<KeystrokeTiming[]> {
  await page.locator(TABLE).evaluate((element) => {
    element.scrollTop = 0;
  });
  await page.locator(SEARCH).click();
  const timings: KeystrokeTiming[] = [];
  for (const { key, expectedRows } of keys) {
    await page.evaluate(
      ({ search, table, anyRow, rows, limitMs }) => {
        const input = document.querySelector<HTMLInputElement>(search);
        if (!input) throw new Error('the batch screen has no search box');
        const rowCount = () =>
          Number(document.querySelector(table)?.querySelector('table')?.getAttribute('aria-rowcount') ?? -1);
        // No match: the screen may say so in place of an empty table.
        const shown = () =>
          rows === 0
            ? rowCount() === 1 || rowCount() === -1
            : rowCount() === rows + 1 && document.querySelector(anyRow) !== null;
        const timing = new Promise<{ inDomMs: number; paintedMs: number }>((resolve, reject) => {
          const timer = window.setTimeout(
            () =>
              reject(
                new Error(
                  `the table did not show ${rows} rows within ${limitMs} ms (aria-rowcount ${rowCount()})`,
                ),
              ),
            limitMs,
          );
          input.addEventListener(
            'keydown',
            () => {
              const started = performance.now();
              const observer = new MutationObserver(() => check());
              const check = () => {
                if (!shown()) return;
                const inDom = performance.now();
                observer.disconnect();
                window.clearTimeout(timer);
                requestAnimationFrame(() =>
                  requestAnimationFrame(() =>
                    resolve({ inDomMs: inDom - started, paintedMs: performance.now() - started }),
                  ),
                );
              };
              observer.observe(document.body, { childList: true, subtree: true, attributes: true });
            },
            { capture: true, once: true },
          );
        });
        (window as unknown as { deskKeystroke: Promise<unknown> }).deskKeystroke = timing;
      },
      {
        search: SEARCH,
        table: TABLE,
        anyRow: `${TABLE} tbody tr[data-index]`,
        rows: expectedRows,
        limitMs: WAIT_LIMIT_MS,
      },
    );
    await page.keyboard.press(key);
    const measured = await page.evaluate(
      () =>
        (window as unknown as { deskKeystroke: Promise<{ inDomMs: number; paintedMs: number }> })
          .deskKeystroke,
    );
    timings.push({ key, rows: expectedRows, ...measured });
  }
  return timings;
}
