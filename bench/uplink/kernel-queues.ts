import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { formatMiB } from '../support/report';

/**
 * The bytes the system holds between the app and the simulator, which neither program counts:
 * what the app handed to its sockets and the kernel has not sent (Send-Q), and what arrived in
 * the simulator's sockets and it has not read (Recv-Q, the line waits). Read with `ss`, a
 * process each time, so only now and then. They tell a bar that runs ahead of the service
 * because the system swallowed megabytes at once from one that counts bytes nobody took.
 */
export interface KernelQueues {
  readonly send: number;
  readonly receive: number;
}

/** The queues on the simulator's connections now; undefined when `ss` is missing. */
export function kernelQueues(port: number): KernelQueues | undefined {
  let output: string;
  try {
    output = execFileSync('ss', ['-tnH'], { encoding: 'utf8' });
  } catch {
    return undefined;
  }
  let send = 0;
  let receive = 0;
  for (const line of output.split('\n')) {
    const [, recvQ, sendQ, local, peer] = line.trim().split(/\s+/);
    if (!local || !peer) continue;
    if (local.endsWith(`:${port}`)) receive += Number(recvQ);
    else if (peer.endsWith(`:${port}`)) send += Number(sendQ);
  }
  return { send, receive };
}

/** The maxima of the TCP buffers (`tcp_wmem` / `tcp_rmem`), as printed with a report. */
export function socketBufferMaxima(): string {
  const max = (name: string) => {
    try {
      return formatMiB(Number(readFileSync(`/proc/sys/net/ipv4/${name}`, 'utf8').trim().split(/\s+/)[2]));
    } catch {
      return 'unknown';
    }
  };
  return `${max('tcp_wmem')} / ${max('tcp_rmem')}`;
}
