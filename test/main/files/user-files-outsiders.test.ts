import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkPdfFile } from '../../../main/files/pdf-check';
import { createUserFiles } from '../../../main/files/user-files';
import { VirtualClock } from '../../../main/time/virtual-clock';

/**
 * Two cases an outside attack found on the reading of a person's files: a drive that stops
 * answering in the middle of a file, and a folder swapped for a link where the kernel cannot say
 * where an open file is (macOS, Windows: no /proc/self/fd).
 */

const calls = {
  realpath: (path: string) => realpath(path),
  stat: (path: string) => stat(path),
  readdir: (path: string) => readdir(path, { withFileTypes: true }),
  readlink: (path: string) => readlink(path),
};

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'user-files-outsiders-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('reading a person’s files', () => {
  it('gives up within the deadline on a file whose drive stops answering after it was opened', async () => {
    // A real read blocked on one of libuv's threads: a FIFO opened read-write has no data and
    // never ends. Its fstat says "regular file", as a hung network drive's file would.
    writeFileSync(join(root, 'real.pdf'), '%PDF-1.7\nhello\n');
    execFileSync('mkfifo', [join(root, 'stuck.pdf')]);
    const regular = await stat(join(root, 'real.pdf'));
    const clock = new VirtualClock();
    const files = createUserFiles({
      deadlineMs: 300,
      clock,
      calls: {
        ...calls,
        open: async (path) => {
          const handle = await open(path, constants.O_RDWR);
          (handle as { stat: unknown }).stat = () => Promise.resolve(regular);
          return handle;
        },
      },
    });
    const outcome = await clock.complete(
      checkPdfFile(join(root, 'stuck.pdf'), {
        open: (path, options) => files.open(path, options),
        within: root,
      }),
    );
    expect(JSON.stringify(outcome)).toContain('ETIMEDOUT');
    // Given up at the read's deadline, then the close's (the blocked read holds the file): no later.
    expect(clock.monotonic()).toBeLessThanOrEqual(2 * 300);
    // A writer ends the blocked read, so the thread it held is given back.
    closeSync(openSync(join(root, 'stuck.pdf'), 'w'));
  }, 10_000);

  it('refuses a folder swapped for a link on the way where the kernel cannot say where a file is', async () => {
    const inside = join(root, 'folder');
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(join(inside, 'sub'), { recursive: true });
    mkdirSync(elsewhere);
    writeFileSync(join(inside, 'sub', 'a.pdf'), '%PDF-1.7\ninside\n');
    writeFileSync(join(elsewhere, 'a.pdf'), '%PDF-1.7\nPRIVATE\n');
    const platform = Object.getOwnPropertyDescriptor(process, 'platform');
    Object.defineProperty(process, 'platform', { value: 'darwin' });
    try {
      const files = createUserFiles({
        calls: {
          ...calls,
          open: async (path, flags) => {
            // Between the check and the open, a folder on the way becomes a link out.
            renameSync(join(inside, 'sub'), join(inside, 'sub.old'));
            symlinkSync(elsewhere, join(inside, 'sub'));
            return open(path, flags);
          },
        },
      });
      const within = await files.resolved(inside);
      const path = await files.resolved(join(inside, 'sub', 'a.pdf'));
      await expect(files.open(path, { within, resolved: true })).rejects.toMatchObject({ code: 'ELOOP' });
    } finally {
      if (platform) Object.defineProperty(process, 'platform', platform);
    }
  });
});
