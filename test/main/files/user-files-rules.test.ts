import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { open, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addPdfDocuments, importManifest } from '../../../main/engine/batch-preparation';
import { checkManifest, formatIssue } from '../../../main/manifest/manifest';
import { createUserFiles, type UserFileSystem } from '../../../main/files/user-files';
import { BatchStore } from '../../../main/store/batch-store';
import { BlobStore } from '../../../main/store/blob-store';
import { createTranslator } from '../../../shared/i18n/translator';
import { CrashFileSystem } from '../../support/crash-fs';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';

/**
 * The rules for the files a person names (main/files/user-files.ts; README "Manifest format", the
 * paragraph "What is read, and the limits"), each staged where only that rule stands between the
 * person and a file they did not mean to send: a swap made between the check and the open (made
 * certain by a hook on `open`), or a link changed between the manifest's check and the copy of its
 * PDFs.
 */
const english = createTranslator('en').t;
const HEADER = 'document,external_reference,participant_type,role,name,email';

let folder: TempFolder;
let elsewhere: TempFolder;
beforeEach(() => {
  folder = makeTempFolder('hollow-files-');
  elsewhere = makeTempFolder('hollow-elsewhere-');
});
afterEach(() => {
  folder.remove();
  elsewhere.remove();
});

/** The real calls; `beforeOpen` runs once, right before the first open of `path`: the race, made certain. */
function swapBeforeOpen(path: string, beforeOpen: () => void): UserFileSystem {
  let swapped = false;
  return {
    realpath: (p) => realpath(p),
    stat: (p) => stat(p),
    readdir: (p) => readdir(p, { withFileTypes: true }),
    readlink: (p) => readlink(p),
    open: (p, flags) => {
      if (p === path && !swapped) {
        swapped = true;
        beforeOpen();
      }
      return open(p, flags);
    },
  };
}

const issuesOf = async (path: string, calls: UserFileSystem) =>
  (await checkManifest(path, english, createUserFiles({ calls }))).issues.map((issue) => formatIssue(issue));

describe('what is opened is checked again', () => {
  it("a folder swapped for a link into /proc after the check: the process's environment is never read", async () => {
    // The person drops inbox/environ on a batch (a file a colleague named so); between the check
    // of its path and the open, inbox becomes a link to /proc/self. The link is on the way, not
    // the last part of the path: only the check of where the kernel says the open file is sees it.
    const inbox = folder.file('inbox');
    mkdirSync(inbox);
    const dropped = join(inbox, 'environ');
    await writePdf({ ...folder, file: (name) => join(inbox, name) }, 'environ', 'A contract');
    const calls = swapBeforeOpen(await realpath(dropped), () => {
      renameSync(inbox, folder.file('inbox-before'));
      symlinkSync('/proc/self', inbox);
    });
    const fs = new CrashFileSystem();
    const store = await BatchStore.open('/data', { fs });
    const blobs = new BlobStore('/data', { fs, originals: createUserFiles({ calls }) });
    const batch = await store.create('Dropped', { defaultRecipients: [] });
    const { added, rejected } = await addPdfDocuments(store, blobs, batch.id, [dropped]);
    expect(added).toEqual([]);
    expect(rejected.map((file) => [file.path, file.message])).toEqual([
      [dropped, 'Cannot read the file: it is a file of the operating system, not a document.'],
    ]);
    await store.close();
  });

  it('a manifest swapped for a symbolic link after the check is refused, not followed to the file it names', async () => {
    // The swapped-in file is a manifest of its own, listing a PDF beside it: followed, it would
    // be taken without a word.
    await writePdf(elsewhere, 'private.pdf', 'Private');
    writeFileSync(
      join(elsewhere.path, 'other.csv'),
      `${HEADER}\nprivate.pdf,P-1,signer,HR,Ann,ann@example.com\n`,
    );
    const manifest = folder.file('manifest.csv');
    writeFileSync(manifest, `${HEADER}\n`);
    const calls = swapBeforeOpen(await realpath(manifest), () => {
      rmSync(manifest);
      symlinkSync(join(elsewhere.path, 'other.csv'), manifest);
    });
    expect(await issuesOf(manifest, calls)).toEqual([
      'the manifest cannot be read: a symbolic link on its path loops, or changed while the file was being opened',
    ]);
  });
});

describe("a manifest's PDFs are checked again as they are copied", () => {
  it('a PDF that became a link out of the folder after the manifest was checked is not copied, and says why', async () => {
    const contract = await writePdf(folder, 'contract.pdf', 'Contract');
    const privatePdf = await writePdf(elsewhere, 'private.pdf', 'Private');
    const manifest = folder.file('manifest.csv');
    writeFileSync(manifest, `${HEADER}\ncontract.pdf,HR-1,signer,Employee,Ann,ann@example.com\n`);
    const check = await checkManifest(manifest, english);
    expect(check.issues).toEqual([]);
    // Between the check and the import, contract.pdf becomes a link to a private file elsewhere.
    rmSync(contract);
    symlinkSync(privatePdf, contract);

    const fs = new CrashFileSystem();
    const store = await BatchStore.open('/data', { fs });
    const blobs = new BlobStore('/data', { fs });
    const batch = await store.create('Contracts', { defaultRecipients: [] });
    const imported = await importManifest(store, blobs, batch.id, check.documents);

    expect(imported).toMatchObject({ added: 0, updated: 0 });
    expect(imported.rejected.map((file) => [file.path, file.message])).toEqual([
      [
        contract,
        'Cannot read the file: it is outside its folder (a symbolic link leads out of it); only files inside the folder are taken.',
      ],
    ]);
    // Said in the person's language, as a PDF added by hand is (documents.addPaths).
    const inFrench = await importManifest(store, blobs, batch.id, check.documents, createTranslator('fr').t);
    expect(inFrench.rejected.map((file) => [file.path, file.code, file.message])).toEqual([
      [
        contract,
        'unreadable_file',
        'Impossible de lire le fichier\u00a0: il est hors de son dossier (un lien symbolique en sort)\u00a0; seuls les fichiers du dossier sont pris.',
      ],
    ]);
    expect(store.get(batch.id)?.documents).toEqual([]);
    // No copy of the private file in the data folder either: nothing of it can be sent.
    const privateDigest = createHash('sha256').update(readFileSync(privatePdf)).digest('hex');
    expect(await blobs.has(privateDigest)).toBe(false);
    await store.close();
  });
});
