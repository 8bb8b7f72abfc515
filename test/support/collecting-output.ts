import type { CliOutput } from '../../main/cli/cli-output';

/**
 * A command's output kept in memory, for tests that run a command in their own process: what it
 * says and its errors as lines (in the order written), and its JSON events.
 */
export function collectingOutput(): CliOutput & { lines: string[]; events: Record<string, unknown>[] } {
  const lines: string[] = [];
  const events: Record<string, unknown>[] = [];
  return {
    json: false,
    lines,
    events,
    say: (text) => lines.push(...text.split('\n')),
    error: (text) => lines.push(...text.split('\n')),
    event: (payload) => {
      events.push({ ...payload });
    },
  };
}
