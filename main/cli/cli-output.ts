/**
 * How the command line speaks: plain sentences for people, or with --json one JSON object per
 * line (events, then a summary) for scripts. Everything goes through here, nothing else prints.
 */
export interface CliOutput {
  /** A line for people; in JSON mode, written as `{"type":"message",...}`. */
  say(text: string): void;
  /** An error for people (stderr); in JSON mode, `{"type":"error",...}` on stdout. */
  error(text: string): void;
  /** A machine event; printed only in JSON mode. */
  event(payload: Readonly<Record<string, unknown>>): void;
  readonly json: boolean;
}

/**
 * Characters a terminal acts on rather than shows: C0 and C1 controls but the line break and the
 * tab (an escape sequence can retitle the window or rewrite what is on screen, a carriage return
 * hides what came before it on the line), and the bidirectional overrides that reorder a line.
 */
const TERMINAL_CONTROLS = /(?![\n\t])[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

/**
 * `text` as a terminal shows it: each control character written as `\u001b`. Sentences carry
 * words the app does not choose (a service's status word, id or message, a folder's name), and
 * none of them may act on the person's terminal. (--json is read by programs: JSON.stringify
 * escapes the C0 controls there.)
 */
export function printable(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Where the command line's words go: the process's streams, or a test's capture of them. */
export interface OutputStreams {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Output to the process's streams. */
export function processOutput(json: boolean): CliOutput {
  return streamOutput(json, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}

/** Output to `streams`, written as `processOutput` writes to the process's. */
export function streamOutput(json: boolean, streams: OutputStreams): CliOutput {
  const line = (payload: Readonly<Record<string, unknown>>) => streams.stdout(`${JSON.stringify(payload)}\n`);
  return {
    json,
    say: (text) => (json ? line({ type: 'message', text }) : streams.stdout(`${printable(text)}\n`)),
    error: (text) => (json ? line({ type: 'error', text }) : streams.stderr(`${printable(text)}\n`)),
    event: (payload) => {
      if (json) line(payload);
    },
  };
}

const ENGLISH_PLURALS = new Intl.PluralRules('en');

/**
 * The English word that agrees with `count` ("needs"/"need", "it"/"them"), by the language's own
 * plural rule, as the app's catalogs choose theirs (the command line speaks English).
 */
export function plural(count: number, one: string, other: string): string {
  return ENGLISH_PLURALS.select(count) === 'one' ? one : other;
}

/** "1 problem" / "5,000 problems": a count with its noun, as the command line writes it (in English). */
export function countLabel(count: number, one: string, other: string): string {
  return `${count.toLocaleString('en')} ${plural(count, one, other)}`;
}

/** Exit codes of the README's "Command line reference": 0 all good, 1 some documents failed, 2 bad input. */
export const EXIT = { ok: 0, someFailed: 1, badInput: 2 } as const;
