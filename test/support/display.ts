/**
 * A display for the real-Electron tests on machines without one (CI, servers): Xvfb from
 * Debian's `xvfb` package, on a free display number it picks itself (`-displayfd`).
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

export interface VirtualDisplay {
  /** The value for DISPLAY, e.g. ":99". */
  readonly display: string;
  close(): void;
}

/** Starts Xvfb and resolves once it accepts connections; rejects if it cannot start within 10 s. */
export function startVirtualDisplay(): Promise<VirtualDisplay> {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x960x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const displayFd = xvfb.stdio[3] as Readable;
  let stderr = '';
  xvfb.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      xvfb.kill();
      reject(new Error(`Xvfb did not start within 10 s: ${stderr.trim()}`));
    }, 10_000);
    let written = '';
    displayFd.on('data', (chunk: Buffer) => {
      written += chunk.toString('utf8');
      const number = /^(\d+)\n/.exec(written)?.[1];
      if (number === undefined) return;
      clearTimeout(timer);
      resolve({ display: `:${number}`, close: () => xvfb.kill() });
    });
    xvfb.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb could not start (${error.message}); install it with: apt-get install xvfb`));
    });
  });
}
