/**
 * Whether the page is being scrolled, and a wait for it to stop. Work that can wait (a
 * thumbnail's drawing: reading the PDF, pdf.js's messages, the canvas) is held back while a
 * table scrolls, so every frame of the scroll goes to the rows coming into view; it runs once no
 * scroll has happened for `quietMs`.
 */
export interface ScrollQuiet {
  /** Resolves at once when the page is still, else once it has been still for `quietMs`. */
  readonly still: () => Promise<void>;
}

/** Listens to every scroll under `target` (scroll events do not bubble: caught on the way down). */
export function watchScrolling(target: EventTarget, quietMs: number): ScrollQuiet {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let waiting: (() => void)[] = [];
  const settled = () => {
    timer = undefined;
    const ready = waiting;
    waiting = [];
    for (const resolve of ready) resolve();
  };
  const scrolled = () => {
    clearTimeout(timer);
    timer = setTimeout(settled, quietMs);
  };
  target.addEventListener('scroll', scrolled, { capture: true, passive: true });
  return {
    still: () =>
      timer === undefined ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve)),
  };
}
