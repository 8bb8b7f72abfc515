/**
 * The browser host's dialogs: what to read comes from the page's prompt, but where a report is
 * written is the host's choice alone (the Downloads folder, a name that never overwrites).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createPromptedDialogs,
  newReportFile,
  reportsFolder,
  withDialogAnswer,
  type PathBases,
} from '../../../main/browser-host/host-dialogs';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

let files: TempFolder;
let bases: PathBases;

beforeEach(() => {
  files = makeTempFolder('desk-host-dialogs-');
  const home = files.file('home');
  mkdirSync(home);
  bases = { home, workingDir: files.path, configHome: join(home, '.config') };
});
afterEach(() => files.remove());

function userDirs(line: string): void {
  mkdirSync(bases.configHome, { recursive: true });
  writeFileSync(join(bases.configHome, 'user-dirs.dirs'), `# written by xdg-user-dirs-update\n${line}\n`);
}

describe('the folder a report is saved in', () => {
  it('is the XDG download folder when user-dirs.dirs names one that exists', async () => {
    userDirs('XDG_DOWNLOAD_DIR="$HOME/Téléchargements"');
    mkdirSync(join(bases.home, 'Téléchargements'));
    mkdirSync(join(bases.home, 'Downloads'));
    expect(await reportsFolder(bases)).toBe(join(bases.home, 'Téléchargements'));

    const elsewhere = files.file('elsewhere');
    mkdirSync(elsewhere);
    userDirs(`XDG_DOWNLOAD_DIR="${elsewhere}"`);
    expect(await reportsFolder(bases)).toBe(elsewhere);
  });

  it('is ~/Downloads without an XDG folder (or when it is missing), else the home folder', async () => {
    expect(await reportsFolder(bases)).toBe(bases.home);
    mkdirSync(join(bases.home, 'Downloads'));
    expect(await reportsFolder(bases)).toBe(join(bases.home, 'Downloads'));
    userDirs('XDG_DOWNLOAD_DIR="$HOME/Missing"');
    expect(await reportsFolder(bases)).toBe(join(bases.home, 'Downloads'));
    // A relative value is not a folder the spec allows.
    userDirs('XDG_DOWNLOAD_DIR="Relative"');
    mkdirSync(join(bases.home, 'Relative'));
    expect(await reportsFolder(bases)).toBe(join(bases.home, 'Downloads'));
  });

  it('does not hang on a FIFO in place of user-dirs.dirs', async () => {
    mkdirSync(bases.configHome, { recursive: true });
    execFileSync('mkfifo', [join(bases.configHome, 'user-dirs.dirs')]);
    expect(await reportsFolder(bases)).toBe(bases.home);
  });
});

describe('the report file', () => {
  it('is named after the batch and never overwrites a file: name.csv, name (2).csv, …', async () => {
    const folder = files.file('out');
    mkdirSync(folder);
    writeFileSync(join(folder, 'March.csv'), 'kept');
    expect(await newReportFile(folder, 'March.csv')).toBe(join(folder, 'March (2).csv'));
    expect(await newReportFile(folder, 'March.csv')).toBe(join(folder, 'March (3).csv'));
    expect(readFileSync(join(folder, 'March.csv'), 'utf8')).toBe('kept');
    expect(readdirSync(folder).sort()).toEqual(['March (2).csv', 'March (3).csv', 'March.csv']);
    // Created for this user only.
    expect(statSync(join(folder, 'March (2).csv')).mode & 0o777).toBe(0o600);
  });

  it('keeps a batch name from choosing the folder', async () => {
    const folder = files.file('out');
    mkdirSync(folder);
    expect(await newReportFile(folder, '../../etc/passwd.csv')).toBe(join(folder, '_.._etc_passwd.csv'));
    expect(await newReportFile(folder, '')).toBe(join(folder, 'report.csv'));
  });

  it('saves under a batch name of 100 CJK characters, and its "(2)" too', async () => {
    const folder = files.file('out');
    mkdirSync(folder);
    const batch = '契約書'.repeat(34).slice(0, 100);
    const first = await newReportFile(folder, batch);
    const second = await newReportFile(folder, batch);
    expect(existsSync(first) && existsSync(second)).toBe(true);
    expect(second.endsWith(' (2).csv')).toBe(true);
    // The name keeps as much of the batch name as fits in a file name.
    expect(basename(first).startsWith('契約書契約書')).toBe(true);
  });
});

describe('the prompted dialogs', () => {
  it('save a report where the host chooses, whatever path the page sent', async () => {
    mkdirSync(join(bases.home, 'Downloads'));
    const dialogs = createPromptedDialogs(bases);
    const sent = files.file('chosen by the page.csv');
    const path = await withDialogAnswer({ paths: [sent] }, () => dialogs.pickReportPath('Monday.csv'));
    expect(path).toBe(join(bases.home, 'Downloads', 'Monday.csv'));
    expect(existsSync(sent)).toBe(false);
  });

  it('still return the paths the page answered for files to read', async () => {
    const dialogs = createPromptedDialogs(bases);
    const manifest = await withDialogAnswer({ paths: ['samples/manifest.csv'] }, () =>
      dialogs.pickManifest(),
    );
    expect(manifest).toBe(join(files.path, 'samples', 'manifest.csv'));
    expect(await withDialogAnswer({ paths: ['~/a.pdf'] }, () => dialogs.pickPdfs())).toEqual([
      join(bases.home, 'a.pdf'),
    ]);
  });
});
