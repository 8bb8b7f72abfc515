import { text } from 'node:stream/consumers';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFileSystem, type FileSystem } from '../../../main/store/file-system';
import { CrashFileSystem, type DiskImage } from '../../support/crash-fs';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { createSeededRandom } from '../../../simulator/seeded-random';

/** What a restarted machine reads at `path` after `image`, or undefined when it is gone. */
async function readAfter(image: DiskImage, path: string): Promise<string | undefined> {
  return new CrashFileSystem({ image }).readFile(path, 'utf8').catch(() => undefined);
}

/** Runs `scenario` on a fresh machine and cuts its power, once per seed; answers what `path` held. */
async function outcomes(
  scenario: (fs: CrashFileSystem) => Promise<void>,
  path: string,
  seeds = 200,
): Promise<(string | undefined)[]> {
  const seen: (string | undefined)[] = [];
  for (let seed = 1; seed <= seeds; seed += 1) {
    const fs = new CrashFileSystem();
    await scenario(fs);
    seen.push(await readAfter(fs.powerCut(createSeededRandom(seed)), path));
  }
  return seen;
}

async function writeSynced(fs: FileSystem, path: string, contents: string): Promise<void> {
  const handle = await fs.open(path, 'w');
  await handle.write(contents);
  await handle.sync();
  await handle.close();
}

describe('the crash-test file system', () => {
  it('keeps, at every power cut, what was synced with its folder', async () => {
    const seen = await outcomes(async (fs) => {
      await fs.mkdir('/data/inner');
      await fs.syncDirectory('/');
      await fs.syncDirectory('/data');
      await writeSynced(fs, '/data/inner/file', 'durable');
      await fs.syncDirectory('/data/inner');
    }, '/data/inner/file');
    expect(new Set(seen)).toEqual(new Set(['durable']));
  });

  it('loses, keeps or tears what was written after the last sync, and only that', async () => {
    const seen = await outcomes(async (fs) => {
      await fs.mkdir('/d');
      await fs.syncDirectory('/');
      const handle = await fs.open('/d/log', 'a');
      await fs.syncDirectory('/d');
      await handle.write('synced;');
      await handle.datasync();
      await handle.write('first;');
      await handle.write('second;');
    }, '/d/log');
    for (const content of seen) {
      expect(content?.startsWith('synced;')).toBe(true);
      const tail = content!.slice('synced;'.length);
      // A prefix of the unsynced writes, or zeros where the size reached the disk but not the data.
      expect('first;second;'.startsWith(tail) || /^(first;)?\0+$/.test(tail)).toBe(true);
    }
    expect(seen).toContain('synced;');
    expect(seen).toContain('synced;first;second;');
    expect(seen.some((content) => content!.length > 'synced;'.length && !content!.endsWith(';'))).toBe(true);
  });

  it('makes durable what was written before a sync was called, not what was written while it ran', async () => {
    const seen = await outcomes(async (fs) => {
      await fs.mkdir('/d');
      await fs.syncDirectory('/');
      const handle = await fs.open('/d/log', 'a');
      await fs.syncDirectory('/d');
      await handle.write('before;');
      const held = fs.holdSyncs();
      const syncing = handle.datasync();
      await held.called(1);
      await handle.write('while;');
      held.release();
      await syncing;
    }, '/d/log');
    for (const content of seen) expect(content?.startsWith('before;')).toBe(true);
    // Only a later sync promises the bytes written while this one ran.
    expect(seen).toContain('before;');
    expect(seen).toContain('before;while;');
  });

  it('may write the pages of unsynced writes in any order: a later page kept, an earlier one lost', async () => {
    const page = 4096;
    const written = 'A'.repeat(page - 'synced;'.length) + 'B'.repeat(page) + 'C'.repeat(page);
    const seen: string[] = [];
    const outOfOrder: boolean[] = [];
    for (let seed = 1; seed <= 300; seed += 1) {
      const fs = new CrashFileSystem();
      await fs.mkdir('/d');
      await fs.syncDirectory('/');
      const handle = await fs.open('/d/log', 'a');
      await fs.syncDirectory('/d');
      await handle.write('synced;');
      await handle.datasync();
      await handle.write(written);
      const image = fs.powerCut(createSeededRandom(seed));
      seen.push((await readAfter(image, '/d/log'))!);
      outOfOrder.push(image.tornOutOfOrder?.includes('/d/log') === true);
    }
    const full = `synced;${written}`;
    for (const content of seen) {
      expect(content.startsWith('synced;')).toBe(true);
      // Each byte is what was written there, or zeros where the size reached the disk but the data did not.
      expect([...content].every((byte, index) => byte === full[index] || byte === '\0')).toBe(true);
    }
    expect(seen).toContain('synced;');
    expect(seen).toContain(full);
    // The second and third pages reached the disk while the first did not, and the image says so.
    const laterKept = seen.flatMap((content, index) =>
      content.length === full.length &&
      content.slice(0, page).includes('\0') &&
      !content.slice(page).includes('\0')
        ? [index]
        : [],
    );
    expect(laterKept.length).toBeGreaterThan(0);
    for (const index of laterKept) expect(outOfOrder[index]).toBe(true);
  });

  it('keeps the durable content of a page rewritten in place that did not reach the disk', async () => {
    const page = 4096;
    const seen = await outcomes(async (fs) => {
      await writeSynced(fs, '/file', 'o'.repeat(2 * page));
      await fs.syncDirectory('/');
      const handle = await fs.open('/file', 'w');
      await handle.write('n'.repeat(2 * page));
    }, '/file');
    expect(seen).toContain('o'.repeat(page) + 'n'.repeat(page));
    expect(seen).toContain('n'.repeat(page) + 'o'.repeat(page));
  });

  it('may lose a rename, or a synced file, until its folder is synced', async () => {
    const replace = (syncFolder: boolean) => async (fs: CrashFileSystem) => {
      await writeSynced(fs, '/target', 'old');
      await fs.syncDirectory('/');
      await writeSynced(fs, '/target.tmp', 'new');
      await fs.rename('/target.tmp', '/target');
      if (syncFolder) await fs.syncDirectory('/');
    };
    expect(new Set(await outcomes(replace(false), '/target'))).toEqual(new Set(['old', 'new']));
    expect(new Set(await outcomes(replace(true), '/target'))).toEqual(new Set(['new']));

    const created = await outcomes(async (fs) => writeSynced(fs, '/fresh', 'synced'), '/fresh');
    expect(new Set(created)).toEqual(new Set([undefined, 'synced']));
  });

  it('may lose a new folder and everything in it until its parent is synced', async () => {
    const seen = await outcomes(async (fs) => {
      await fs.mkdir('/batch');
      await writeSynced(fs, '/batch/journal', 'entry');
      await fs.syncDirectory('/batch');
    }, '/batch/journal');
    expect(new Set(seen)).toEqual(new Set([undefined, 'entry']));
  });

  it('fails writes beyond its capacity with ENOSPC after a short write, until space is freed', async () => {
    const fs = new CrashFileSystem({ capacityBytes: 10 });
    const handle = await fs.open('/file', 'a');
    await handle.write('12345678');
    await expect(handle.write('abcd')).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await fs.readFile('/file', 'utf8')).toBe('12345678ab');
    await handle.truncate(8);
    await handle.write('ab');
    fs.setCapacity(undefined);
    await handle.write('cdef');
    expect(await fs.readFile('/file', 'utf8')).toBe('12345678abcdef');
    expect(fs.usedBytes).toBe(14);
    await handle.close();
    await fs.rm('/file');
    expect(fs.usedBytes).toBe(0);
  });

  it('injects a fault after a number of bytes, into the operations named', async () => {
    const fs = new CrashFileSystem();
    const handle = await fs.open('/file', 'w');
    fs.failWith('EIO', { afterBytes: 3 });
    await expect(handle.write('abcdef')).rejects.toMatchObject({ code: 'EIO' });
    expect(await fs.readFile('/file', 'utf8')).toBe('abc');
    fs.failWith('EIO', { operations: ['datasync'] });
    await handle.write('more');
    await expect(handle.datasync()).rejects.toMatchObject({ code: 'EIO' });
    fs.clearFailure();
    await handle.datasync();
    expect(fs.syncCount).toBe(2);
  });

  it('kills the old process at a power cut: its files and calls fail with EIO, and reach nothing', async () => {
    const fs = new CrashFileSystem();
    const handle = await fs.open('/file', 'w');
    await handle.write('kept');
    await handle.sync();
    await fs.syncDirectory('/');
    const image = fs.powerCut(createSeededRandom(1));
    await expect(handle.write('late')).rejects.toMatchObject({ code: 'EIO' });
    await expect(handle.sync()).rejects.toMatchObject({ code: 'EIO' });
    await expect(fs.readFile('/file')).rejects.toMatchObject({ code: 'EIO' });
    await expect(text(fs.createReadStream('/file', { highWaterMark: 2 }))).rejects.toMatchObject({
      code: 'EIO',
    });
    expect(await readAfter(image, '/file')).toBe('kept');
  });

  it('cuts the power at the k-th operation: it and every later one reject, the image holds the rest', async () => {
    const fs = new CrashFileSystem();
    const seen: string[] = [];
    fs.onOperation = (operation) => seen.push(`${operation.index} ${operation.kind}`);
    const handle = await fs.open('/file', 'w');
    await fs.syncDirectory('/');
    fs.cutAfterOperations(3, createSeededRandom(7));
    await handle.write('a');
    await handle.sync();
    await expect(handle.sync()).rejects.toMatchObject({ code: 'EIO' });
    await expect(handle.write('b')).rejects.toMatchObject({ code: 'EIO' });
    expect(seen).toEqual(['1 open', '2 syncDirectory', '3 write', '4 sync', '5 sync']);
    expect(fs.operationCount).toBe(5);
    expect(fs.syncCount).toBe(2);
    expect(await readAfter(fs.cutImage!, '/file')).toBe('a');
  });

  it('keeps the page cache when only the process dies', async () => {
    const fs = new CrashFileSystem();
    const handle = await fs.open('/file', 'w');
    await handle.write('unsynced');
    const next = fs.crashProcess();
    await expect(handle.write('x')).rejects.toMatchObject({ code: 'EIO' });
    expect(await next.readFile('/file', 'utf8')).toBe('unsynced');
  });

  it('streams a file in chunks', async () => {
    const fs = new CrashFileSystem();
    await writeSynced(fs, '/file', 'abcdefg');
    const chunks: string[] = [];
    for await (const chunk of fs.createReadStream('/file', { highWaterMark: 3 })) chunks.push(String(chunk));
    expect(chunks).toEqual(['abc', 'def', 'g']);
    await expect(text(fs.createReadStream('/missing', { highWaterMark: 3 }))).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});

describe('the crash-test file system and the real disk', () => {
  let folder: TempFolder | undefined;
  afterEach(() => folder?.remove());

  /** The same calls on both must give the same answers, or the power-cut tests prove nothing. */
  async function contract(fs: FileSystem, root: string): Promise<unknown[]> {
    const answers: unknown[] = [];
    const code = (promise: Promise<unknown>) =>
      promise.then(
        () => 'ok',
        (error: NodeJS.ErrnoException) => error.code,
      );
    answers.push((await fs.mkdir(`${root}/a/b`))?.slice(root.length));
    answers.push(await fs.mkdir(`${root}/a/b`));
    const handle = await fs.open(`${root}/a/b/f`, 'wx', 0o600);
    await handle.write('hello ');
    await handle.writeFile('world');
    answers.push((await handle.stat()).size);
    await handle.truncate(5);
    await handle.datasync();
    await handle.close();
    answers.push(await code(fs.open(`${root}/a/b/f`, 'wx')));
    answers.push(await code(fs.open(`${root}/a/missing/f`, 'w')));
    answers.push(await code(fs.readFile(`${root}/nothing`)));
    const appended = await fs.open(`${root}/a/b/f`, 'a');
    await appended.write('!');
    await appended.close();
    answers.push(await fs.readFile(`${root}/a/b/f`, 'utf8'));
    await fs.rename(`${root}/a/b/f`, `${root}/a/g`);
    const entries = await fs.readdir(`${root}/a`);
    answers.push(entries.map((entry) => [entry.name, entry.isFile(), entry.isDirectory()]).sort());
    answers.push((await fs.stat(`${root}/a/g`)).size, (await fs.stat(`${root}/a`)).isDirectory());
    answers.push(await text(fs.createReadStream(`${root}/a/g`, { highWaterMark: 2 })));
    await fs.syncDirectory(`${root}/a`);
    answers.push(await code(fs.rm(`${root}/a/nothing`)));
    await fs.rm(`${root}/a/nothing`, { force: true });
    await fs.rm(`${root}/a`, { recursive: true });
    answers.push(await code(fs.stat(`${root}/a`)));
    return answers;
  }

  it('answer the same calls alike', async () => {
    folder = makeTempFolder('desk-crash-fs-');
    const real = await contract(nodeFileSystem, folder.path);
    const crash = new CrashFileSystem();
    await crash.mkdir('/root');
    const double = await contract(crash, '/root');
    expect(double).toEqual(real);
    expect(real).toEqual([
      '/a',
      undefined,
      11,
      'EEXIST',
      'ENOENT',
      'ENOENT',
      'hello!',
      [
        ['b', false, true],
        ['g', true, false],
      ],
      6,
      true,
      'hello!',
      'ENOENT',
      'ENOENT',
    ]);
  });
});
