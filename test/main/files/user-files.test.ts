import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { open, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkManifest, formatIssue } from '../../../main/manifest/manifest';
import {
  createUserFiles,
  unreadableReason,
  USER_FILE_THREADS,
  type UserFileSystem,
} from '../../../main/files/user-files';
import { createMemoryCredentialStore } from '../../../main/credentials/credential-store';
import { openDataDir, type DataDir } from '../../../main/app/desk-core';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { createTranslator } from '../../../shared/i18n/translator';
import { createTestDeskService } from '../../support/desk-service-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';

const english = createTranslator('en').t;

/** The real calls, except `open`, which never answers: a network drive that went away. */
function hangingOpen(opened: { count: number }): UserFileSystem {
  return {
    realpath: (path) => realpath(path),
    stat: (path) => stat(path),
    readdir: (path) => readdir(path, { withFileTypes: true }),
    readlink: (path) => readlink(path),
    open: () => {
      opened.count += 1;
      return new Promise(() => undefined);
    },
  };
}

let folder: TempFolder;
beforeEach(() => {
  folder = makeTempFolder('user-files-');
});
afterEach(() => folder.remove());

describe('reads of the person’s files are bounded in time and in threads', () => {
  it('gives up on a file whose drive does not answer, with a reason a person understands', async () => {
    writeFileSync(folder.file('m.csv'), 'document\n');
    const clock = new VirtualClock();
    const files = createUserFiles({ calls: hangingOpen({ count: 0 }), deadlineMs: 200, clock });
    const error = await clock.complete(
      files.readWhole(folder.file('m.csv'), { maxBytes: 1024 }).catch((e: unknown) => e),
    );
    // Given up at its deadline, exactly (on the virtual clock), not later.
    expect(clock.monotonic()).toBe(200);
    expect((error as { code?: string }).code).toBe('ETIMEDOUT');
    expect(unreadableReason('ETIMEDOUT', english)).toBe(
      'its drive did not answer within 15 seconds (a network drive that is offline?)',
    );
  });

  it(`never has more than ${USER_FILE_THREADS} calls in flight, so the journal keeps the other threads`, async () => {
    for (const name of ['a', 'b', 'c', 'd']) writeFileSync(folder.file(`${name}.pdf`), '%PDF-1.7\n');
    const opened = { count: 0 };
    const files = createUserFiles({ calls: hangingOpen(opened), deadlineMs: 300 });
    const reads = ['a', 'b', 'c', 'd'].map((name) =>
      files.readWhole(folder.file(`${name}.pdf`), { maxBytes: 1024 }).catch((e: unknown) => e),
    );
    const errors = await Promise.all(reads);
    // Two calls hang on their threads; the two others waited for a thread and gave up too.
    expect(opened.count).toBe(USER_FILE_THREADS);
    expect(errors.map((error) => (error as { code?: string }).code)).toEqual([
      'ETIMEDOUT',
      'ETIMEDOUT',
      'ETIMEDOUT',
      'ETIMEDOUT',
    ]);
    // The hung calls still hold their threads: a later read waits for one, then gives up.
    const later = await files.readWhole(folder.file('a.pdf'), { maxBytes: 1024 }).catch((e: unknown) => e);
    expect((later as { code?: string }).code).toBe('ETIMEDOUT');
    expect(opened.count).toBe(USER_FILE_THREADS);
  });

  it('keeps durable writes going while a manifest names four FIFOs as its PDFs', async () => {
    const rows = [1, 2, 3, 4].map((index) => {
      execFileSync('mkfifo', [folder.file(`pipe${index}.pdf`)]);
      return `pipe${index}.pdf,REF-${index},signer,Employee,Anne,anne@example.com`;
    });
    writeFileSync(
      folder.file('manifest.csv'),
      ['document,external_reference,participant_type,role,name,email', ...rows].join('\n'),
    );
    const check = checkManifest(folder.file('manifest.csv'));
    // What the journal does: write, sync, close, on libuv's threads.
    const writes = Array.from({ length: 20 }, async (_, index) => {
      const handle = await open(folder.file(`journal-${index}`), 'w');
      await handle.write('event\n');
      await handle.sync();
      await handle.close();
    });
    await Promise.all(writes);
    expect((await check).issues.map((issue) => formatIssue(issue))).toEqual(
      [1, 2, 3, 4].map(
        (index) =>
          `row ${index + 1}, column A (document): cannot read "pipe${index}.pdf": it is a named pipe (FIFO), not a file`,
      ),
    );
  });
});

describe('what is opened is what was checked', () => {
  let elsewhere: string;
  beforeEach(() => {
    elsewhere = mkdtempSync(join(tmpdir(), 'elsewhere-'));
  });
  afterEach(() => rmSync(elsewhere, { recursive: true, force: true }));

  it('refuses a file that a folder swapped for a link between the check and the open leads out to', async () => {
    // The race, made certain: `realpath` sees the folder's own file, `open` lands elsewhere.
    writeFileSync(folder.file('contract.pdf'), '%PDF-1.7\n');
    writeFileSync(join(elsewhere, 'private.pdf'), '%PDF-1.7\nprivate\n');
    const swapped: UserFileSystem = {
      realpath: (path) => realpath(path),
      stat: (path) => stat(path),
      readdir: (path) => readdir(path, { withFileTypes: true }),
      readlink: (path) => readlink(path),
      open: (_path, flags) => open(join(elsewhere, 'private.pdf'), flags),
    };
    const files = createUserFiles({ calls: swapped });
    const error = await files
      .readWhole(folder.file('contract.pdf'), { maxBytes: 1024, within: folder.path })
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('OUTSIDE_FOLDER');
  });

  it('refuses a manifest’s PDF that a folder swapped for a link between the check and the open leads out to', async () => {
    // The manifest check resolves each PDF once and opens it by that path: the open is still
    // checked against where the system says the opened file is.
    writeFileSync(folder.file('contract.pdf'), '%PDF-1.7\n');
    writeFileSync(join(elsewhere, 'private.pdf'), '%PDF-1.7\nprivate\n');
    writeFileSync(
      folder.file('manifest.csv'),
      'document,external_reference,participant_type,role,name,email\ncontract.pdf,REF-1,signer,Employee,Anne,anne@example.com\n',
    );
    const swapped: UserFileSystem = {
      realpath: (path) => realpath(path),
      stat: (path) => stat(path),
      readdir: (path) => readdir(path, { withFileTypes: true }),
      readlink: (path) => readlink(path),
      open: (path, flags) => open(path.endsWith('.pdf') ? join(elsewhere, 'private.pdf') : path, flags),
    };
    const check = await checkManifest(
      folder.file('manifest.csv'),
      english,
      createUserFiles({ calls: swapped }),
    );
    expect(check.documents).toEqual([]);
    expect(check.issues.map((issue) => formatIssue(issue))).toEqual([
      'row 2, column A (document): cannot read "contract.pdf": it is outside its folder (a symbolic link leads out of it); only files inside the folder are taken',
    ]);
  });

  it('never reads the operating system’s own files, such as a process’s environment', async () => {
    symlinkSync('/proc/self/environ', folder.file('manifest.csv'));
    const check = await checkManifest(folder.file('manifest.csv'));
    expect(check.issues.map((issue) => formatIssue(issue))).toEqual([
      'the manifest cannot be read: it is a file of the operating system, not a document',
    ]);
  });

  it('reads a PDF once however many spellings of it a manifest holds', async () => {
    await writePdf(folder, 'big.pdf', 'Big');
    symlinkSync('.', folder.file('l'));
    symlinkSync('.', folder.file('k'));
    const spellings = ['big.pdf', './big.pdf', 'l/big.pdf', 'k/l/big.pdf', 'l/k/l/big.pdf'];
    writeFileSync(
      folder.file('manifest.csv'),
      [
        'document,external_reference,participant_type,role,name,email',
        ...spellings.map((path, index) => `${path},REF-${index},signer,Employee,Anne,anne@example.com`),
      ].join('\n'),
    );
    const real = createUserFiles();
    let reads = 0;
    const counting = {
      ...real,
      open: (...args: Parameters<typeof real.open>) => {
        reads += 1;
        return real.open(...args);
      },
    };
    const check = await checkManifest(folder.file('manifest.csv'), english, counting);
    expect(check.issues).toEqual([]);
    expect(check.documents).toHaveLength(spellings.length);
    expect(reads).toBe(1);
  });
});

describe('a folder of PDFs added in the app', () => {
  let dataDir: DataDir;
  let elsewhere: string;
  beforeEach(async () => {
    const opened = await openDataDir(folder.file('data'));
    if (!opened.ok) throw new Error(opened.error);
    dataDir = opened.value;
    elsewhere = mkdtempSync(join(tmpdir(), 'elsewhere-'));
  });
  afterEach(async () => {
    await dataDir.close();
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('adds its PDFs and a link that stays inside it, and says why a link out of it or a pipe is not taken', async () => {
    const inbox = folder.file('inbox');
    mkdirSync(inbox);
    await writePdf({ ...folder, path: inbox, file: (name) => join(inbox, name) }, 'contract.pdf', 'Contract');
    symlinkSync(join(inbox, 'contract.pdf'), join(inbox, 'copy.pdf'));
    await writePdf({ ...folder, path: elsewhere, file: (name) => join(elsewhere, name) }, 'private.pdf');
    symlinkSync(join(elsewhere, 'private.pdf'), join(inbox, 'innocent.pdf'));
    execFileSync('mkfifo', [join(inbox, 'pipe.pdf')]);
    writeFileSync(join(inbox, 'notes.txt'), 'not a PDF');

    const service = createTestDeskService(dataDir, createMemoryCredentialStore());
    try {
      const batch = await service.handlers['batches.create']('From a folder');
      const picked = { folder: inbox, paths: ['contract.pdf', 'copy.pdf', 'innocent.pdf', 'pipe.pdf'] };
      const result = await service.handlers['documents.addPaths'](
        batch.id,
        picked.paths.map((name) => join(inbox, name)),
        picked.folder,
      );
      expect(result.added).toBe(2);
      expect(result.rejected.map((file) => [file.path, file.message])).toEqual([
        [
          join(inbox, 'innocent.pdf'),
          'Cannot read the file: it is outside its folder (a symbolic link leads out of it); only files inside the folder are taken.',
        ],
        [join(inbox, 'pipe.pdf'), 'Cannot read the file: it is a named pipe (FIFO), not a file.'],
      ]);
      // Picked by hand, the same link is the person's own choice.
      const byHand = await service.handlers['documents.addPaths'](batch.id, [join(inbox, 'innocent.pdf')]);
      expect(byHand).toEqual({ added: 1, rejected: [] });
    } finally {
      await service.close();
    }
  });
});
