import { describe, expect, it } from 'vitest';
import { UploadProgress } from '../../../main/engine/upload-progress';
import { ONE_LANE_UPLOAD_MS, SLOW_LINE_UPLOAD_MS, UploadPace } from '../../../main/engine/upload-pace';
import { SLOWEST_LINE_BYTES_PER_S } from '../../../main/client/upload-timing';

const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * An upload through a line of `bytesPerS` whose system buffers take `buffered` bytes at once:
 * what the connection has taken and what crossed the line at each tick of `stepMs`.
 */
function* line(total: number, bytesPerS: number, buffered: number, stepMs = 50) {
  for (let at = 0; ; at += stepMs) {
    const crossed = Math.min(total, (bytesPerS * at) / 1000);
    // The connection takes what the line carried plus what the buffers hold, a slice at a time.
    const taken = Math.min(total, Math.floor((crossed + buffered) / (64 * KIB)) * 64 * KIB);
    yield { at, crossed, taken };
    if (crossed >= total) return;
  }
}

describe('upload progress: never ahead of what the line could have carried', () => {
  it.each([
    // How far the bar has gone once the line carried the whole file, at least (a share of it).
    ['0.5 Mbit/s, 4 MiB of buffers, nothing measured yet', 64 * KIB, 4 * MIB, undefined, 1 / 4],
    // Nothing measured: at the slowest line (a quarter of 2 Mbit/s), never ahead.
    ['2 Mbit/s, 6 MiB of buffers, nothing measured yet', 256 * KIB, 6 * MIB, undefined, 0.23],
    ['20 Mbit/s, 8 MiB of buffers, a share measured earlier', 2.5 * MIB, 8 * MIB, 2.5 * MIB, 1 / 4],
    // Over before the connection's own pace can be read: the bar goes at the slowest line.
    ['100 Mbit/s, 2 MiB of buffers, nothing measured yet', 12.5 * MIB, 2 * MIB, undefined, 0.004],
  ])(
    '%s: at most 256 KiB ahead of the bytes the service has, all along',
    (_name, bytesPerS, buffered, measured, movesAtLeast) => {
      const total = 20 * MIB;
      const progress = new UploadProgress(total, 0, measured === undefined ? undefined : measured / 1000);
      let worstAhead = 0;
      let lastShown = 0;
      for (const { at, crossed, taken } of line(total, bytesPerS, buffered)) {
        progress.took(taken, at);
        const shown = progress.shown(at);
        worstAhead = Math.max(worstAhead, shown - crossed);
        expect(shown).toBeGreaterThanOrEqual(lastShown);
        lastShown = shown;
      }
      expect(worstAhead).toBeLessThanOrEqual(256 * KIB);
      expect(lastShown).toBeGreaterThan(total * movesAtLeast);
    },
  );

  it('a file the buffers take whole moves at the slowest line until the service answers', () => {
    const progress = new UploadProgress(2 * MIB, 0, undefined);
    progress.took(2 * MIB, 5);
    expect(progress.allHanded).toBe(true);
    expect(progress.shown(1_000)).toBeLessThanOrEqual(SLOWEST_LINE_BYTES_PER_S);
    expect(progress.shown(1_000)).toBeGreaterThan(0);
  });

  it('a new attempt starts over from the first byte', () => {
    const progress = new UploadProgress(MIB, 0, 1_000);
    progress.took(MIB, 0);
    expect(progress.shown(2_000)).toBe(MIB);
    progress.restart(3_000);
    expect(progress.shown(3_000)).toBe(0);
    expect(progress.allHanded).toBe(false);
    expect(progress.beganAt).toBe(3_000);
  });

  it('stands still while the connection takes nothing (a stalled line)', () => {
    const progress = new UploadProgress(40 * MIB, 0, undefined);
    // 10 s at 1 MiB/s after a 4 MiB burst, then nothing for 20 s.
    for (let at = 0; at <= 10_000; at += 100) progress.took(4 * MIB + (MIB * at) / 1_000, at);
    const beforeStall = progress.shown(10_000);
    const afterStall = progress.shown(30_000);
    expect(afterStall - beforeStall).toBeLessThanOrEqual(256 * KIB);
  });
});

describe('uploads on the line at once', () => {
  it('two before anything is measured; fewer when one document alone takes long, all when the line is fast', () => {
    const pace = new UploadPace();
    expect(pace.lanesFor(4, 5 * MIB)).toBe(2);
    // 4 uploads shared 2 Mbit/s (256 KiB/s): a 5 MiB document takes 20 s alone.
    pace.finished(5 * MIB, 80_000, 4);
    expect((5 * MIB) / (256 * KIB)).toBeGreaterThan(ONE_LANE_UPLOAD_MS / 1_000);
    expect(pace.lanesFor(4, 5 * MIB)).toBe(1);
    // 20 Mbit/s: 2.1 s alone.
    const twenty = new UploadPace();
    twenty.finished(5 * MIB, 4_200, 2);
    expect(twenty.lanesFor(4, 5 * MIB)).toBe(2);
    // 1 MiB documents on a fast line: each alone well under a second.
    const fast = new UploadPace();
    fast.finished(MIB, 200, 2);
    expect((MIB / (2 * MIB)) * 1_000).toBeLessThan(SLOW_LINE_UPLOAD_MS);
    expect(fast.lanesFor(4, MIB)).toBe(4);
    expect(fast.lanesFor(8, MIB)).toBe(8);
  });
});

describe('an upload that waited for its lane', () => {
  it('takes the pace the run measured meanwhile when its attempt begins', () => {
    const progress = new UploadProgress(8 * MIB, 0, undefined, 2);
    // Nothing measured when it was queued; a MiB a second measured when its attempt begins.
    progress.restart(60_000, MIB / 1_000, 2);
    progress.took(8 * MIB, 60_010);
    expect(progress.shown(61_010)).toBeGreaterThan(MIB - 64 * KIB);
    expect(progress.shown(61_010)).toBeLessThanOrEqual(MIB + 64 * KIB);
  });
});
