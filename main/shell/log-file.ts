/** The main process's log: JSON lines appended to a file in the user-data folder. */
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createJsonLogger, type Logger } from '../log';

/**
 * A logger writing to `file` (created private to the user), and to stderr as well when
 * `mirrorToStderr` (development). A failing disk never stops the app: lines are then dropped.
 */
export function openLogFile(file: string, mirrorToStderr: boolean): Logger {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const stream = createWriteStream(file, { flags: 'a', mode: 0o600 });
  stream.on('error', () => undefined);
  return createJsonLogger((line) => {
    stream.write(line);
    if (mirrorToStderr) process.stderr.write(line);
  });
}
