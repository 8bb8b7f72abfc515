/** The main process's log: JSON lines appended to a file in the user-data folder. */
import { appendFileSync, createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createJsonLogger, type Logger } from '../base/log';

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

/**
 * A logger that has written each line (to `file` and stderr) when it returns: for the last words
 * of a process that exits at once (`app.exit` drops what a stream still holds).
 */
export function openLogFileSync(file: string): Logger {
  return createJsonLogger((line) => {
    try {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      appendFileSync(file, line, { mode: 0o600 });
    } catch {
      // A failing disk never stops the app, nor this line on stderr.
    }
    process.stderr.write(line);
  });
}
