import { createJsonLogger, type Logger } from '../../../main/base/log';

/** A real JSON logger whose lines land in `lines`, to check what the shell logs. */
export function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createJsonLogger((line) => lines.push(line)), lines };
}
