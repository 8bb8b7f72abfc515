import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../../main/store/data-dir-lock';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

// A person runs the command line from a project checkout with `--data-dir ./my-data`: the data
// folder's private files must stay out of git and out of the repository's format check.

const REPOSITORY = resolve(import.meta.dirname, '../../..');
const FORMAT_CHECK = join(REPOSITORY, 'scripts/format-check.mjs');

let folder: TempFolder;

function git(...args: string[]): string {
  const result = spawnSync('git', args, { cwd: folder.path, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

function formatCheck(): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [FORMAT_CHECK], { cwd: folder.path, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

async function openAndClose(dataDir: string): Promise<void> {
  const lock = await lockDataDir(dataDir);
  if (!lock.ok) throw new Error('the data folder should be free');
  await lock.value.release();
}

beforeEach(() => {
  folder = makeTempFolder('data-folder-marker-');
  git('init', '-q');
  // The checkout's own tools, as in the repository (ignored there too).
  symlinkSync(join(REPOSITORY, 'node_modules'), join(folder.path, 'node_modules'));
  writeFileSync(join(folder.path, '.gitignore'), 'node_modules\n');
  writeFileSync(join(folder.path, 'source.json'), '{ "kept": true }\n');
});

afterEach(() => {
  folder.remove();
});

describe('a data folder inside a project checkout', () => {
  it('is left out of git: its journal, settings and lock files never show as new files', async () => {
    const dataDir = join(folder.path, 'my-data');
    await openAndClose(dataDir);
    writeFileSync(join(dataDir, 'settings.json'), '{"language":"fr"}');
    expect(git('status', '--porcelain', '--untracked-files=all').split('\n')).not.toContain('?? my-data/');
    expect(git('ls-files', '--others', '--exclude-standard')).not.toMatch(/my-data/);
    // The project's own new files still show.
    expect(git('ls-files', '--others', '--exclude-standard')).toMatch(/source\.json/);
  });

  it('keeps the format check green, while a badly formatted project file still fails it', async () => {
    const dataDir = join(folder.path, 'nested', 'desk data');
    await openAndClose(dataDir);
    writeFileSync(join(dataDir, 'profiles.json'), '{"profiles":[{"name":"Production"}]}');
    expect(formatCheck()).toMatchObject({ status: 0 });

    writeFileSync(join(folder.path, 'source.json'), '{"kept":true,   "badly":[1,2]}');
    const failed = formatCheck();
    expect(failed.status).not.toBe(0);
    expect(failed.output).toMatch(/source\.json/);
  });

  it('leaves a marker the person already has alone, and opens again without complaint', async () => {
    const dataDir = join(folder.path, 'my-data');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, '.gitignore'), '# mine\n*.tmp\n');
    await openAndClose(dataDir);
    await openAndClose(dataDir);
    expect(readFileSync(join(dataDir, '.gitignore'), 'utf8')).toBe('# mine\n*.tmp\n');
  });

  it('marks an earlier version’s data folder (only the app’s own files) when it opens again', async () => {
    const dataDir = join(folder.path, 'old-data');
    mkdirSync(join(dataDir, 'batches'), { recursive: true });
    writeFileSync(join(dataDir, 'lock'), '');
    writeFileSync(join(dataDir, 'settings.json'), '{"language":"de"}');
    await openAndClose(dataDir);
    expect(git('ls-files', '--others', '--exclude-standard')).not.toMatch(/old-data/);
  });

  it('never marks the person’s own folder named as the data folder: their new files stay visible', async () => {
    // `--data-dir .` or `--data-dir docs`: a folder that already holds other things.
    const ownFolder = join(folder.path, 'docs');
    mkdirSync(ownFolder);
    writeFileSync(join(ownFolder, 'notes.md'), '# notes\n');
    await openAndClose(ownFolder);
    await openAndClose(folder.path);
    expect(existsSync(join(ownFolder, '.gitignore'))).toBe(false);
    expect(readFileSync(join(folder.path, '.gitignore'), 'utf8')).toBe('node_modules\n');
    expect(git('ls-files', '--others', '--exclude-standard')).toMatch(/docs\/notes\.md/);
  });
});

describe('the format check', () => {
  it('checks a file whose name reads like an option as a file: `--plugin=x.mjs` never loads x.mjs', () => {
    // A module that leaves a trace when Prettier loads it as a plugin.
    writeFileSync(
      join(folder.path, 'x.mjs'),
      'import { writeFileSync } from "node:fs";\n\nwriteFileSync("loaded", "");\nexport default {};\n',
    );
    writeFileSync(join(folder.path, '--plugin=x.mjs'), 'export const a = 1;\n');
    const checked = formatCheck();
    expect(existsSync(join(folder.path, 'loaded'))).toBe(false);
    // Both files checked as files (Prettier's own style, in a folder without its settings).
    expect(checked).toMatchObject({ status: 0 });
  });
});
