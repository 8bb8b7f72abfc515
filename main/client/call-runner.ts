import type { z } from 'zod';
import { checkBaseUrl } from './base-url';
import type { Logger } from '../base/log';
import type { Secret } from '../base/secret';
import { classifyAnswer, type FailedAnswer } from './answer-classification';
import { backoffCeilingMs, backoffDelayMs, parseRetryAfterMs, type RetryPolicy } from './backoff';
import { admitAttempt, type Politeness } from './attempt-admission';
import type { HttpOutcome, HttpRequest, Transport } from './transport';
import { ok } from '../../shared/base/result';
import {
  MAX_OPERATION_HOLD_MS,
  failure,
  type OperationName,
  type ServiceResult,
} from '../domain/service-failure';

/** A signal aborted when either is (undefined when neither is given). */
function anySignal(first: AbortSignal | undefined, second: AbortSignal | undefined): AbortSignal | undefined {
  if (!first || !second) return first ?? second;
  return AbortSignal.any([first, second]);
}

/** An access token held in memory only. */
export interface AccessToken {
  readonly value: Secret;
  /** Local clock time (ms) after which the token should not be used; undefined when unknown. */
  readonly expiresAt: number | undefined;
}

/** Where authenticated calls get their token, and report one the service refused. */
export interface TokenSource {
  current(): Promise<ServiceResult<AccessToken>>;
  /** A token asked for now (sharing one already on its way), not one kept from earlier. */
  renew(): Promise<ServiceResult<AccessToken>>;
  invalidate(token: AccessToken): void;
}

/**
 * What one attempt that left did, as far as its outcome shows: `not_applied` when the answer
 * proves it was not applied (429, 503, a 4xx, a 401, a gateway's 404, a connection refused
 * before sending, a body that could not be read from disk); `maybe_applied` when it may have
 * been or was (a timeout, a connection lost after sending, 500/502/504 and every other 5xx,
 * any 2xx, an abort while it was on its way).
 */
export type AttemptOutcome = 'not_applied' | 'maybe_applied';

/** Everything the runner needs to perform one service operation. */
interface CallSpecFields<T> {
  readonly operation: OperationName;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: HttpRequest['body'];
  /** How a 2xx body is read; lenient schemas keep unknown fields. */
  readonly schema: z.ZodType<T>;
  /** Present for every call but the token call (spec §4). */
  readonly auth?: TokenSource;
  /** The token endpoint answers errors in OAuth shape, the API in the spec's §7 shape. */
  readonly errorShape: 'oauth' | 'api';
  /**
   * Whether sending the call again is harmless when an earlier attempt may have been applied
   * (reads, idempotency-keyed creates). Calls certainly never sent are always retried.
   */
  readonly repeatable: boolean;
  /** `HttpRequest.timeoutMs`, or one per attempt (given the attempt's number, from 1). */
  readonly timeoutMs: number | ((attempt: number) => number);
  /** For a streamed body (uploads): `HttpRequest.stallMs`, or one per attempt. */
  readonly stallMs?: number | ((attempt: number) => number) | undefined;
  /** For a streamed body: `HttpRequest.onBodySent`, for every attempt. */
  readonly onBodySent?: ((sentBytes: number) => void) | undefined;
  /** Aborting abandons the call at once, an attempt on its way included (it may have been applied). */
  readonly signal?: AbortSignal | undefined;
  /**
   * Aborting stops the call from sending anything more: no further attempt leaves (the call
   * rejects with the reason where it would have left, or while it waits), while an attempt
   * already on its way is left to finish and its answer is returned. A pause or a quit uses it
   * so that calls in flight are answered rather than left "may have been applied".
   */
  readonly departures?: AbortSignal | undefined;
  /** Overrides the policy's attempts for this call. */
  readonly maxAttempts?: number | undefined;
  /** Overrides parts of the policy for this call (a check someone waits on gives up sooner). */
  readonly retry?: Partial<RetryPolicy> | undefined;
  /**
   * Attempts with the same key start at least `READ_SPACING_MS` apart, whoever makes them
   * (reads of one signing request: its id).
   */
  readonly spacingKey?: string | undefined;
  /**
   * Told right before each HTTP attempt leaves (after the token and every wait), with the
   * number of attempts sent so far, this one included. Never told when nothing leaves.
   */
  readonly onAttempt?: ((attempt: number) => void) | undefined;
  /**
   * Told once per attempt that left (after its `onAttempt`), as soon as its outcome is known:
   * before any wait for the next attempt and before the call returns. An attempt aborted while on
   * its way is told `maybe_applied` before the abort is rethrown. `answered`: the service sent an
   * answer (any HTTP status); false when none came (a timeout, a lost or refused connection, an abort).
   */
  readonly onAttemptSettled?: ((outcome: AttemptOutcome, answered: boolean) => void) | undefined;
}

/** A call whose success needs a readable body: a 2xx without one is `invalid_response`. */
export interface CallSpec<T> extends CallSpecFields<T> {
  readonly bodyOptional?: false;
}

/**
 * A call for which any 2xx is success, with or without a body (README "Answers the spec does not pin down"): an empty or
 * unreadable body gives `body: undefined`.
 */
export interface OptionalBodyCallSpec<T> extends CallSpecFields<T> {
  readonly bodyOptional: true;
}

/** A successful call. */
export interface CallAnswer<T> {
  readonly body: T;
  /** The answer's `Location` header, as sent (a creation answered without a body may name its request there). */
  readonly location: string | undefined;
  /**
   * When the service says it answered, by its own clock (the `Date` header, epoch ms); undefined
   * without a readable one. A second clock beside this computer's, which may be set wrong.
   */
  readonly serviceTime: number | undefined;
  /**
   * True when an earlier attempt of this same call may have reached the service (timeout,
   * connection lost after sending, 5xx other than 503) before the attempt that succeeded.
   */
  readonly earlierAttemptUnknown: boolean;
}

export interface CallRunnerDeps extends Politeness {
  readonly baseUrl: string;
  readonly transport: Transport;
  readonly policy: RetryPolicy;
  readonly logger: Logger;
  readonly random: () => number;
  /** Told each time an answer lengthens an operation's hold, with the hold's length from now. */
  readonly onHold?: ((operation: OperationName, heldMs: number) => void) | undefined;
}

/**
 * Runs one service operation to completion: bounded attempts, exponential backoff with full
 * jitter, Retry-After honoured for every caller of the operation (the gate), reads of one
 * request spaced, one token renewal on 401, every answer parsed with its schema. Repeats only
 * what is safe to repeat. Returns a value; only the caller's abort throws (its reason).
 */
export class CallRunner {
  readonly #deps: CallRunnerDeps;
  /**
   * The service's address in its one spelling, or undefined when it fails the address rule
   * (main/client/base-url.ts): then nothing is sent, not even a token request with the
   * client secret, whichever caller forgot to check it.
   */
  readonly #baseUrl: string | undefined;

  constructor(deps: CallRunnerDeps) {
    this.#deps = deps;
    const address = checkBaseUrl(deps.baseUrl);
    this.#baseUrl = address.ok ? address.value : undefined;
  }

  /** Runs a call; see `CallSpec` and `OptionalBodyCallSpec` for what counts as success. */
  run<T>(spec: OptionalBodyCallSpec<T>): Promise<ServiceResult<CallAnswer<T | undefined>>>;
  run<T>(spec: CallSpec<T>): Promise<ServiceResult<CallAnswer<T>>>;
  async run<T>(
    spec: CallSpec<T> | OptionalBodyCallSpec<T>,
  ): Promise<ServiceResult<CallAnswer<T | undefined>>> {
    const { logger, random } = this.#deps;
    const baseUrl = this.#baseUrl;
    if (baseUrl === undefined) {
      // Never the address itself in the log: it may hold a user name and password.
      logger.log('warn', 'service.address_refused', { operation: spec.operation });
      return failure({
        operation: spec.operation,
        code: 'address_refused',
        retryable: false,
        outcomeUnknown: false,
        attempts: 0,
      });
    }
    const policy = {
      ...this.#deps.policy,
      ...spec.retry,
      ...(spec.maxAttempts ? { maxAttempts: spec.maxAttempts } : {}),
    };
    /** Attempts counted against the policy (a resend after a token renewal is not counted). */
    let attempt = 0;
    /** HTTP attempts that left, every one counted. */
    let sent = 0;
    /** After a 401: the next attempt that leaves goes with a token asked for right before it. */
    let renewToken = false;
    let outcomeUnknown = false;
    // Waits end on either signal: nothing more leaves after a pause, and an abort ends it all.
    const waitSignal = anySignal(spec.signal, spec.departures);

    for (;;) {
      // Its turn first (Retry-After holds, read spacing), then its token: a token taken before a
      // long wait could expire during it, and a service that does not say when answers 401.
      const admission = await admitAttempt(
        this.#deps,
        { operation: spec.operation, spacingKey: spec.spacingKey, signal: waitSignal },
        policy.maxRetryAfterMs,
      );
      if (admission.kind === 'held') {
        logger.log('warn', 'service.held_back', {
          operation: spec.operation,
          code: admission.code,
          remainingMs: admission.remainingMs,
        });
        return failure({
          operation: spec.operation,
          code: admission.code,
          retryable: true,
          outcomeUnknown,
          attempts: attempt,
          retryAfterMs: admission.remainingMs,
        });
      }
      let token: AccessToken | undefined;
      /** This attempt's token was asked for right before it: a 401 to it refuses the credentials. */
      let tokenRenewed = false;
      if (spec.auth) {
        // After a 401, a token kept from earlier (another call may have renewed it while this one
        // waited its turn) may be too old already: only a token asked for now tells whether the
        // service refuses the credentials.
        tokenRenewed = renewToken;
        const asked = renewToken ? spec.auth.renew() : spec.auth.current();
        const tokenResult = await asked.catch((error: unknown) => {
          admission.pass.finish(false);
          throw error;
        });
        if (!tokenResult.ok) {
          admission.pass.finish(false);
          return failure({
            ...tokenResult.error,
            operation: spec.operation,
            attempts: attempt,
            outcomeUnknown,
            stage: 'token',
          });
        }
        token = tokenResult.value;
        // Another caller's answer may have held the operation while this one fetched its token:
        // no attempt starts inside a Retry-After, so it waits for its turn again (and asks for a
        // token again after it: the one it has may be too old by then).
        if (this.#deps.gate.remaining(spec.operation)) {
          admission.pass.finish(false);
          continue;
        }
      }
      renewToken = false;
      // Stopped while it waited for its token (a pause, a quit): nothing left, nothing may be
      // told as "on its way". Checked with no await before the attempt leaves.
      const stoppedBy = [spec.signal, spec.departures].find((signal) => signal?.aborted);
      if (stoppedBy) {
        admission.pass.finish(false);
        throw stoppedBy.reason;
      }
      attempt += 1;
      sent += 1;
      let outcome: HttpOutcome;
      let dispatched = false;
      try {
        spec.onAttempt?.(sent);
        dispatched = true;
        outcome = await this.#deps.transport.send({
          method: spec.method,
          url: `${baseUrl}${spec.path}`,
          headers: {
            accept: 'application/json',
            ...(token ? { authorization: `Bearer ${token.value.reveal()}` } : {}),
            ...spec.headers,
          },
          body: spec.body,
          timeoutMs: typeof spec.timeoutMs === 'function' ? spec.timeoutMs(sent) : spec.timeoutMs,
          ...(spec.stallMs === undefined
            ? {}
            : { stallMs: typeof spec.stallMs === 'function' ? spec.stallMs(sent) : spec.stallMs }),
          ...(spec.onBodySent === undefined ? {} : { onBodySent: spec.onBodySent }),
          signal: spec.signal,
        });
      } catch (error) {
        admission.pass.finish(false);
        // Aborted on its way: what left may have been applied.
        if (dispatched) spec.onAttemptSettled?.('maybe_applied', false);
        throw error;
      }
      if (outcome.kind !== 'answered') admission.pass.finish(false);
      // The read spacing counts again from the answer: the service saw this attempt arrive
      // somewhere between its start and now (a slow token, a busy event loop, the network).
      if (spec.spacingKey !== undefined) this.#deps.spacing.markStarted(spec.spacingKey);

      if (outcome.kind === 'local') {
        spec.onAttemptSettled?.('not_applied', false);
        return failure({
          operation: spec.operation,
          code: 'local_file_changed',
          retryable: false,
          // A partial body may have reached the service; it cannot have been accepted. An
          // earlier attempt of this call may have been, though.
          outcomeUnknown,
          attempts: attempt,
        });
      }
      if (outcome.kind === 'network') {
        const unknownNow = outcome.mayHaveReachedService || outcome.timedOut;
        outcomeUnknown ||= unknownNow;
        spec.onAttemptSettled?.(unknownNow ? 'maybe_applied' : 'not_applied', false);
        const code = outcome.timedOut ? 'timeout' : 'network_unreachable';
        const fail = (): ServiceResult<CallAnswer<T>> =>
          failure({
            operation: spec.operation,
            code,
            retryable: true,
            outcomeUnknown,
            attempts: attempt,
            networkCode: outcome.errorCode,
          });
        if (unknownNow && !spec.repeatable) return fail();
        // Refused twice: the service is unreachable; the caller (the queue) waits and says so.
        if (!unknownNow && attempt >= 2) return fail();
        if (attempt >= policy.maxAttempts) return fail();
        await this.#pause(spec, attempt, outcome.errorCode, backoffDelayMs(attempt, policy, random));
        continue;
      }

      const answer = classifyAnswer(outcome.status, outcome.text, spec.errorShape);
      // A 2xx was applied; a 401 and every failure but an unknown one say this attempt was not.
      spec.onAttemptSettled?.(
        answer.kind === 'success' || (answer.kind === 'failure' && answer.outcomeUnknown)
          ? 'maybe_applied'
          : 'not_applied',
        true,
      );
      const parsedRetryAfterMs = parseRetryAfterMs(
        outcome.headers['retry-after'],
        this.#deps.clock.now(),
        outcome.headers.date,
      );
      // No hold lasts longer than a day, and what the caller is told to wait is a delay a timer can take.
      const retryAfterMs =
        parsedRetryAfterMs === undefined ? undefined : Math.min(parsedRetryAfterMs, MAX_OPERATION_HOLD_MS);
      const pauseMs =
        answer.kind === 'failure'
          ? this.#pauseOperation(spec.operation, answer, outcome.status, retryAfterMs, attempt)
          : undefined;
      // Callers waiting for this attempt's answer see the pause it asked for, if any.
      admission.pass.finish(true);
      if (answer.kind === 'success') {
        return this.#parseAnswer(spec, outcome.text, attempt, outcomeUnknown, outcome.headers);
      }
      if (answer.kind === 'unauthorized') {
        if (token && spec.auth && !tokenRenewed) {
          // A token kept from earlier, expired or revoked: try again, without counting an attempt,
          // with one asked for right then. (Each such 401 follows an attempt that went out with
          // a renewed token and was answered otherwise, which counted: the loop is bounded.)
          renewToken = true;
          spec.auth.invalidate(token);
          attempt -= 1;
          continue;
        }
        return failure({
          operation: spec.operation,
          httpStatus: outcome.status,
          code: spec.auth ? 'credentials_rejected' : (answer.details.code ?? 'service_error'),
          serviceMessage: answer.details.message,
          retryable: false,
          outcomeUnknown,
          attempts: attempt,
        });
      }

      outcomeUnknown ||= answer.outcomeUnknown;
      const fail = (): ServiceResult<CallAnswer<T>> =>
        failure({
          operation: spec.operation,
          httpStatus: outcome.status,
          code: answer.code,
          serviceMessage: answer.serviceMessage,
          retryable: answer.retryable,
          outcomeUnknown,
          attempts: attempt,
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        });
      if (!answer.retryable) return fail();
      if (answer.outcomeUnknown && !spec.repeatable) return fail();
      if (attempt >= policy.maxAttempts) return fail();
      if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) return fail();
      // A paused operation waits at the gate before its next attempt, like every other caller's.
      const delayMs = pauseMs !== undefined ? 0 : (retryAfterMs ?? backoffDelayMs(attempt, policy, random));
      await this.#pause(spec, attempt, `http_${outcome.status}`, delayMs);
    }
  }

  /**
   * Holds the operation back for every caller after a 429 (for its Retry-After, or without one
   * for the longest backoff of this attempt) or a 503 with a Retry-After. Returns the hold, or
   * undefined when the answer asks for none.
   */
  #pauseOperation(
    operation: OperationName,
    answer: FailedAnswer,
    status: number,
    retryAfterMs: number | undefined,
    attempt: number,
  ): number | undefined {
    if (!answer.pausesOperation) return undefined;
    const holdMs =
      retryAfterMs ?? (status === 429 ? backoffCeilingMs(attempt, this.#deps.policy) : undefined);
    if (holdMs === undefined) return undefined;
    const lengthenedMs = this.#deps.gate.hold(operation, holdMs, answer.code);
    if (lengthenedMs !== undefined) this.#deps.onHold?.(operation, lengthenedMs);
    return holdMs;
  }

  async #pause(
    spec: CallSpecFields<unknown>,
    attempt: number,
    reason: string,
    delayMs: number,
  ): Promise<void> {
    this.#deps.logger.log('warn', 'service.retry', { operation: spec.operation, attempt, reason, delayMs });
    if (delayMs > 0) await this.#deps.clock.sleep(delayMs, anySignal(spec.signal, spec.departures));
  }

  #parseAnswer<T>(
    spec: CallSpec<T> | OptionalBodyCallSpec<T>,
    text: string,
    attempt: number,
    earlierAttemptUnknown: boolean,
    headers: Readonly<Record<string, string | undefined>>,
  ): ServiceResult<CallAnswer<T | undefined>> {
    const { location } = headers;
    const date = headers.date === undefined ? Number.NaN : Date.parse(headers.date);
    const serviceTime = Number.isNaN(date) ? undefined : date;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = spec.schema.safeParse(json);
    if (parsed.success) return ok({ body: parsed.data, earlierAttemptUnknown, location, serviceTime });
    if (spec.bodyOptional) {
      if (text.trim() !== '') {
        this.#deps.logger.log('warn', 'service.unread_success_body', { operation: spec.operation });
      }
      return ok({ body: undefined, earlierAttemptUnknown, location, serviceTime });
    }
    this.#deps.logger.log('error', 'service.invalid_response', {
      operation: spec.operation,
      issues: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    });
    return failure({
      operation: spec.operation,
      code: 'invalid_response',
      retryable: false,
      // The call succeeded on the service's side; only its answer is unreadable.
      outcomeUnknown: true,
      attempts: attempt,
    });
  }
}
