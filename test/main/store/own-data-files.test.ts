/**
 * The app's own small files (profiles.json, settings.json, the lock's owner file, the service
 * holds) are opened like the person's files: a FIFO, a socket, a folder or a link in a file's
 * place is refused at once, by name, and left where it is. A plain read of a FIFO waits for a
 * writer for ever (past SIGTERM): each test has a short timeout, so such a hang fails it.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryCredentialStore } from '../../../main/credentials/credential-store';
import { createProfileStore, PROFILES_FILE } from '../../../main/credentials/profile-store';
import { KEYCHAIN_ID_FILE } from '../../../main/credentials/folder-identity';
import { lockDataDir } from '../../../main/store/data-dir-lock';
import { readOwnFile, readOwnFileSync } from '../../../main/store/own-file';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

const CHILD = fileURLToPath(new URL('./own-data-files-child.ts', import.meta.url));
const HANG_TIMEOUT_MS = 4000;
/** The child starts through tsx, slower on a busy machine; a hang still never ends. */
const CHILD_TIMEOUT_MS = 15_000;

let files: TempFolder | undefined;
const fifos: string[] = [];
const servers: Server[] = [];
const releases: (() => Promise<void>)[] = [];

afterEach(async () => {
  // A reader still blocked on a FIFO (the code under test before the fix) is set free by a writer.
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader waits: nothing to free.
    }
  }
  for (const release of releases.splice(0)) await release();
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
  files?.remove();
  files = undefined;
});

function dataDir(): string {
  files = makeTempFolder('harden2-own-');
  const path = files.file('data');
  mkdirSync(path, { recursive: true, mode: 0o700 });
  return path;
}

function plantFifo(path: string): void {
  execFileSync('mkfifo', [path]);
  fifos.push(path);
}

async function plantSocket(path: string): Promise<void> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((listening) => server.listen(path, listening));
}

function isFifo(path: string): boolean {
  return statSync(path).isFIFO();
}

describe('profiles.json', () => {
  async function listIn(dir: string) {
    return createProfileStore({ dataDir: dir, credentials: createMemoryCredentialStore() }).list();
  }

  it(
    'a FIFO in its place is refused by name, and left there',
    async () => {
      const dir = dataDir();
      const path = join(dir, PROFILES_FILE);
      plantFifo(path);
      const listed = await listIn(dir);
      expect(listed.ok).toBe(false);
      if (listed.ok) return;
      expect(listed.error.code).toBe('settings_unreadable');
      expect(listed.error.message).toContain(path);
      expect(listed.error.message).toContain('it is a named pipe (FIFO), not a file');
      expect(isFifo(path)).toBe(true);
    },
    HANG_TIMEOUT_MS,
  );

  it('a socket, a folder or a link in its place is refused, each said as what it is', async () => {
    const dir = dataDir();
    const path = join(dir, PROFILES_FILE);
    await plantSocket(path);
    const socket = await listIn(dir);
    expect(socket.ok ? undefined : socket.error.message).toContain('it is a socket, not a file');

    files?.remove();
    const second = dataDir();
    mkdirSync(join(second, PROFILES_FILE));
    const folder = await listIn(second);
    expect(folder.ok ? undefined : folder.error.message).toContain('it is a folder, not a file');

    files?.remove();
    const third = dataDir();
    writeFileSync(join(third, 'elsewhere.json'), '{"version":1,"profiles":[]}');
    symlinkSync(join(third, 'elsewhere.json'), join(third, PROFILES_FILE));
    const link = await listIn(third);
    expect(link.ok ? undefined : link.error.message).toContain('symbolic link');
    expect(existsSync(join(third, PROFILES_FILE))).toBe(true);
  });
});

describe("keychain-id.json (which names the data folder's keychain entries)", () => {
  it(
    'a FIFO in its place is refused by name, and left there',
    async () => {
      const dir = dataDir();
      const profile = { name: 'Office', baseUrl: 'https://sign.example.com', clientId: 'desk' };
      writeFileSync(join(dir, PROFILES_FILE), JSON.stringify({ version: 1, profiles: [profile] }));
      const path = join(dir, KEYCHAIN_ID_FILE);
      plantFifo(path);
      const store = createProfileStore({ dataDir: dir, credentials: createMemoryCredentialStore() });
      for (const answer of [await store.list(), await store.connectionFor('Office')]) {
        expect(answer.ok ? undefined : answer.error.message).toContain(path);
        expect(answer.ok ? undefined : answer.error.message).toContain(
          'it is a named pipe (FIFO), not a file',
        );
      }
      expect(isFifo(path)).toBe(true);
    },
    HANG_TIMEOUT_MS,
  );
});

describe("the lock's owner file", () => {
  it(
    'a FIFO in its place leaves the refused process with an unknown holder, at once',
    async () => {
      const dir = dataDir();
      const held = await lockDataDir(dir);
      if (!held.ok) throw new Error('the first lock was refused');
      releases.push(() => held.value.release());
      const owner = join(dir, 'lock-owner.json');
      execFileSync('rm', [owner]);
      plantFifo(owner);
      const refused = await lockDataDir(dir);
      expect(refused).toEqual({ ok: false, error: undefined });
      expect(isFifo(owner)).toBe(true);
    },
    HANG_TIMEOUT_MS,
  );
});

/** What the child read from `dir` (see own-data-files-child.ts). */
function readInChild(kind: 'settings' | 'holds', dir: string): Promise<unknown> {
  return new Promise((resolveRead, rejectRead) => {
    execFile(process.execPath, ['--import', 'tsx', CHILD, kind, dir], (error, stdout, stderr) => {
      if (error) rejectRead(new Error(`the child failed: ${stderr}`));
      else resolveRead(JSON.parse(stdout));
    });
  });
}

describe('settings.json and service-holds.json (read synchronously)', () => {
  it(
    'a FIFO as settings.json gives the default settings at once, and is left there',
    async () => {
      const dir = dataDir();
      plantFifo(join(dir, 'settings.json'));
      expect(await readInChild('settings', dir)).toEqual({ language: 'system', trackingPaused: false });
      expect(isFifo(join(dir, 'settings.json'))).toBe(true);
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'a FIFO as service-holds.json holds nothing, at once',
    async () => {
      const dir = dataDir();
      plantFifo(join(dir, 'service-holds.json'));
      expect(await readInChild('holds', dir)).toEqual({});
      expect(isFifo(join(dir, 'service-holds.json'))).toBe(true);
    },
    CHILD_TIMEOUT_MS,
  );
});

describe('readOwnFile', () => {
  it('reads a small regular file, says a missing one is missing, and refuses one over its bound', async () => {
    const dir = dataDir();
    const path = join(dir, 'small.json');
    writeFileSync(path, '{"a":1}');
    expect(await readOwnFile(path, 64)).toBe('{"a":1}');
    expect(readOwnFileSync(path, 64)).toBe('{"a":1}');
    expect(await readOwnFile(join(dir, 'absent.json'), 64)).toBeUndefined();
    expect(readOwnFileSync(join(dir, 'absent.json'), 64)).toBeUndefined();
    await expect(readOwnFile(path, 4)).rejects.toMatchObject({ code: 'TOO_LARGE', path });
    expect(() => readOwnFileSync(path, 4)).toThrow(expect.objectContaining({ code: 'TOO_LARGE' }));
  });

  it(
    'refuses a FIFO, a socket, a folder and a link by their kind, naming the file',
    async () => {
      const dir = dataDir();
      plantFifo(join(dir, 'fifo'));
      await plantSocket(join(dir, 'socket'));
      mkdirSync(join(dir, 'folder'));
      writeFileSync(join(dir, 'target'), '{}');
      symlinkSync(join(dir, 'target'), join(dir, 'link'));
      for (const [name, code] of [
        ['fifo', 'FIFO'],
        ['socket', 'SOCKET'],
        ['folder', 'EISDIR'],
        ['link', 'ELOOP'],
      ] as const) {
        const path = join(dir, name);
        await expect(readOwnFile(path, 64)).rejects.toMatchObject({ code, path });
        expect(() => readOwnFileSync(path, 64)).toThrow(expect.objectContaining({ code, path }));
      }
    },
    HANG_TIMEOUT_MS,
  );
});
