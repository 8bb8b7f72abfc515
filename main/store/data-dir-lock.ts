import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

export type LockResult =
  { readonly ok: true; release(): Promise<void> } | { readonly ok: false; readonly holderPid: number };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the data folder for this process, so two processes (the app and a command line run)
 * never send the same batch at once. A lock left by a process that died is taken over.
 */
export async function lockDataDir(dataDir: string): Promise<LockResult> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const lockPath = join(dataDir, 'lock');
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.sync();
      await handle.close();
      return { ok: true, release: () => rm(lockPath, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10);
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        return { ok: false, holderPid: holder };
      }
      await rm(lockPath, { force: true });
    }
  }
  throw new Error(`could not take the lock ${lockPath}`);
}
