/**
 * Structured logging: one JSON object per line. Fields are serialised with JSON.stringify,
 * so a `Secret` prints as "[redacted]" by construction; callers never pass raw secret strings.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  log(level: LogLevel, event: string, fields?: LogFields): void;
}

/** A logger that writes JSON lines to `write` (a file, stderr, or a test's array). */
export function createJsonLogger(write: (line: string) => void, now: () => Date = () => new Date()): Logger {
  return {
    log(level, event, fields = {}) {
      write(`${JSON.stringify({ time: now().toISOString(), level, event, ...fields })}\n`);
    },
  };
}

/** A logger that drops everything (the default for library use). */
export const silentLogger: Logger = { log() {} };
