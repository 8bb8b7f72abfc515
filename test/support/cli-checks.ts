/**
 * Plays the user who answers "needs your check" (README "Sending exactly once") with the command line, in the
 * suites that run `send` as a real process: for each `needs-check` line of a `--json` run, looks
 * the document's reference up at the service and runs `resolve --link <id>` when the service
 * holds one request for it, `resolve --send-new` when it holds none. A reference the service
 * holds twice is a duplicate the app let through, and fails the test. The command-line twin of
 * `answerChecks` (user-checks.ts).
 */
import { expect } from 'vitest';
import { DEMO_CLIENT, type Simulator } from '../../simulator/simulator';
import { parseJsonLines, runCli, type CliCredentials, type CliResult, type JsonEvent } from './cli-process';

/** Runs one command to its end: a child process (`runCli`) or in the test's process (`runCliHere`). */
export type CliRunner = (args: readonly string[], credentials: CliCredentials) => Promise<CliResult>;

/** How one document that needed a check was answered. */
export interface CliCheckAnswer {
  readonly reference: string;
  /** The reason `send` (or an earlier `resolve`) gave: `key_refused`, `new_request_after_unknown`… */
  readonly reason: string;
  readonly answer: 'link' | 'send-new';
  /** For `link`: the request the service held for the reference. */
  readonly requestId?: string;
  /** Which round of answers it belonged to (1 for the documents the first run named). */
  readonly round: number;
}

export interface CliCheckOutcome {
  readonly answers: readonly CliCheckAnswer[];
  readonly linked: number;
  readonly sentAsNew: number;
  /** The last `resolve` run, or undefined when the run given had no document to answer. */
  readonly lastRun: CliResult | undefined;
  /** The `summary` line of the last run (the given one when nothing needed an answer). */
  readonly summary: JsonEvent | undefined;
}

export interface CliCheckOptions {
  readonly credentials?: CliCredentials;
  /** Runs whose needs-check lines are answered before the test fails (default 3). */
  readonly maxRounds?: number;
}

interface NeedsCheckLine {
  readonly reference: string;
  readonly reason: string;
}

function needsCheckLines(stdout: string): NeedsCheckLine[] {
  return parseJsonLines(stdout)
    .filter((event) => event.type === 'needs-check')
    .map((event) => ({ reference: String(event.externalReference), reason: String(event.reason) }));
}

function summaryLine(stdout: string): JsonEvent | undefined {
  return parseJsonLines(stdout)
    .filter((event) => event.type === 'summary')
    .at(-1);
}

/**
 * Answers every document the `--json` output `sendStdout` names as needing a check, one
 * `resolve MANIFEST --reference REF (--link ID | --send-new) ...connectionArgs --json` at a time
 * (`connectionArgs`: `--base-url URL --data-dir DIR`, or the profile's). Each `resolve` runs the
 * batch on to its end and names the documents that still need a check; those it names anew are
 * answered in the next round, until a run names none (at most `maxRounds` rounds, else the test
 * fails). Every `resolve` must accept the answer, print nothing on stderr and exit 0 or 1.
 */
export async function answerChecksWithCli(
  cli: string | CliRunner,
  sim: Simulator,
  manifestPath: string,
  connectionArgs: readonly string[],
  sendStdout: string,
  options: CliCheckOptions = {},
): Promise<CliCheckOutcome> {
  const credentials = options.credentials ?? DEMO_CLIENT;
  // A path is the bundled command line, run as a child process.
  const run: CliRunner =
    typeof cli === 'string' ? (args, given) => runCli(cli, args, { credentials: given }) : cli;
  const maxRounds = options.maxRounds ?? 3;
  const answers: CliCheckAnswer[] = [];
  let lastRun: CliResult | undefined;
  let latestStdout = sendStdout;
  let pending = needsCheckLines(sendStdout);
  for (let round = 1; pending.length > 0; round += 1) {
    expect(
      round,
      `documents still needing a check after ${maxRounds} rounds of answers: ${pending.map((check) => check.reference).join(', ')}`,
    ).toBeLessThanOrEqual(maxRounds);
    for (const check of pending) {
      // Answer only what the latest run still names: the user reads the latest output.
      if (!needsCheckLines(latestStdout).some((line) => line.reference === check.reference)) continue;
      const held = sim.state.requests().filter((request) => request.externalReference === check.reference);
      expect(
        held.length,
        `requests the service holds for ${check.reference}: ${held.map((request) => request.id).join(', ')} (a duplicate)`,
      ).toBeLessThanOrEqual(1);
      const [request] = held;
      // None held: the user looked, found none, and confirms sending anew.
      let answer = request ? ['--link', request.id] : ['--send-new', '--confirm'];
      let result = await run(
        ['resolve', manifestPath, '--reference', check.reference, ...answer, ...connectionArgs, '--json'],
        credentials,
      );
      // A service whose reads do not show the reference: the user saw at the service that it
      // is this document's request, and confirms it.
      const refusal = parseJsonLines(result.stdout).find((event) => event.type === 'resolved');
      if (request && refusal?.ok === false && refusal.refusal === 'needs_confirmation') {
        answer = [...answer, '--confirm'];
        result = await run(
          ['resolve', manifestPath, '--reference', check.reference, ...answer, ...connectionArgs, '--json'],
          credentials,
        );
      }
      const context = `resolve ${check.reference} ${answer.join(' ')}:\n${result.stdout.slice(-2_000)}\n${result.stderr}`;
      expect(result.stderr, context).toBe('');
      expect([0, 1], context).toContain(result.code);
      expect(
        parseJsonLines(result.stdout).find((event) => event.type === 'resolved'),
        context,
      ).toMatchObject({ externalReference: check.reference, ok: true });
      answers.push({
        reference: check.reference,
        reason: check.reason,
        answer: request ? 'link' : 'send-new',
        ...(request ? { requestId: request.id } : {}),
        round,
      });
      lastRun = result;
      latestStdout = result.stdout;
    }
    pending = needsCheckLines(latestStdout);
  }
  return {
    answers,
    linked: answers.filter((answer) => answer.answer === 'link').length,
    sentAsNew: answers.filter((answer) => answer.answer === 'send-new').length,
    lastRun,
    summary: summaryLine(latestStdout),
  };
}

/** One line for test output: how many documents were linked or sent anew, and which. */
export function describeCheckAnswers(outcome: CliCheckOutcome): string {
  if (outcome.answers.length === 0) return 'no document needed a check';
  const each = outcome.answers
    .map(
      (answer) =>
        `${answer.reference} (${answer.reason}) ${answer.answer === 'link' ? `linked to ${answer.requestId}` : 'sent as new'}`,
    )
    .join('; ');
  return `${outcome.answers.length} needed a check: ${outcome.linked} linked, ${outcome.sentAsNew} sent as new — ${each}`;
}
