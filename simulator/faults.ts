import { checkStallMs } from './line';
import {
  TOKEN_REFUSAL_CODES,
  type FaultConfig,
  type FaultKind,
  type QueuedFault,
  type TokenRefusalCode,
} from './types';

/** The only path a `tokenRefusal` fault answers. */
export const TOKEN_PATH = '/oauth/token';

/** What the pipeline does to one request before (and after) processing it. */
export interface FaultDecision {
  kind: FaultKind | null;
  /** For a `reject` fault: the answer to give instead of processing the request. */
  reject?: { status: number; code: string };
  /** For a `tokenRefusal` fault: the OAuth error to refuse the token request with. */
  tokenRefusal?: TokenRefusalCode;
  retryAfterSeconds: number;
  /** Delay before the answer is written (or the socket dropped after processing). */
  latencyMs: number;
  /** For `silent` and `stall`: upload body bytes taken before the fault strikes (0: before the body). */
  afterBytes?: number;
  /** For `stall`: how long the connection is not read. */
  stallMs?: number;
}

export const NO_FAULTS: Readonly<FaultConfig> = {
  rate503: 0,
  rate429: 0,
  retryAfterSeconds: 1,
  dropBeforeRate: 0,
  dropAfterRate: 0,
  gateway404Rate: 0,
  latencyMs: 0,
  latencySpikeRate: 0,
  latencySpikeMs: 0,
  tokenRefusalRate: 0,
  tokenRefusalCode: 'invalid_grant',
  silentRate: 0,
};

function isTokenRefusalCode(code: string): code is TokenRefusalCode {
  return (TOKEN_REFUSAL_CODES as readonly string[]).includes(code);
}

const RATE_FIELDS = [
  'rate503',
  'rate429',
  'dropBeforeRate',
  'dropAfterRate',
  'gateway404Rate',
  'latencySpikeRate',
  'tokenRefusalRate',
  'silentRate',
] as const satisfies readonly (keyof FaultConfig)[];
const DURATION_FIELDS = [
  'retryAfterSeconds',
  'latencyMs',
  'latencySpikeMs',
] as const satisfies readonly (keyof FaultConfig)[];

function checkConfig(config: FaultConfig): void {
  for (const field of RATE_FIELDS) {
    const rate = config[field];
    if (!Number.isFinite(rate) || rate < 0 || rate > 1) {
      throw new RangeError(`fault ${field} must be a probability in [0, 1], got ${rate}`);
    }
  }
  for (const field of DURATION_FIELDS) {
    const value = config[field];
    if (!Number.isFinite(value) || value < 0) {
      throw new RangeError(`fault ${field} must be a non-negative number, got ${value}`);
    }
  }
  if (!isTokenRefusalCode(config.tokenRefusalCode))
    throw new RangeError(
      `fault tokenRefusalCode must be ${TOKEN_REFUSAL_CODES.join(' or ')}, got ${String(config.tokenRefusalCode)}`,
    );
  if (config.pathPattern !== undefined) new RegExp(config.pathPattern);
}

/** A queued fault's `afterBytes` and `stallMs` belong to `silent` and `stall` only, and must be counts. */
function checkHold(fault: QueuedFault): void {
  const holds = fault.kind === 'silent' || fault.kind === 'stall';
  if (fault.afterBytes !== undefined) {
    if (!holds) throw new RangeError(`afterBytes belongs to a silent or stall fault, not ${fault.kind}`);
    if (!Number.isSafeInteger(fault.afterBytes) || fault.afterBytes < 0)
      throw new RangeError(`afterBytes must be a whole number of bytes, got ${fault.afterBytes}`);
  }
  if (fault.kind === 'stall' && fault.stallMs === undefined)
    throw new RangeError('a stall fault needs stallMs, how long the connection is not read');
  if (fault.stallMs !== undefined) {
    if (fault.kind !== 'stall') throw new RangeError(`stallMs belongs to a stall fault, not ${fault.kind}`);
    checkStallMs(fault.stallMs, 'stallMs');
  }
}

/**
 * Decides which fault, if any, hits each request: queued faults first (deterministic, in
 * order), then the random rates drawn from the seeded generator.
 */
export class FaultController {
  #config: FaultConfig = { ...NO_FAULTS };
  #queue: QueuedFault[] = [];
  readonly #random: () => number;

  constructor(random: () => number) {
    this.#random = random;
  }

  /** The current random-fault configuration (a copy). */
  config(): FaultConfig {
    return { ...this.#config };
  }

  /** Merges `changes` into the configuration; throws RangeError on an invalid value. */
  set(changes: Partial<FaultConfig>): void {
    const merged: FaultConfig = { ...this.#config };
    for (const [field, value] of Object.entries(changes)) {
      // An explicit undefined clears the optional pathPattern instead of storing a hole.
      if (value === undefined) delete merged[field as keyof FaultConfig];
      else Object.assign(merged, { [field]: value });
    }
    checkConfig(merged);
    this.#config = merged;
  }

  /** Removes every random and queued fault. */
  reset(): void {
    this.#config = { ...NO_FAULTS };
    this.#queue = [];
  }

  /** Queues faults for the next matching requests, in order; throws on an invalid pattern. */
  enqueue(...faults: QueuedFault[]): void {
    for (const fault of faults) {
      if (fault.pathPattern !== undefined) new RegExp(fault.pathPattern);
      if (
        fault.status !== undefined &&
        (!Number.isInteger(fault.status) || fault.status < 400 || fault.status > 599)
      )
        throw new RangeError(`a rejected request's status must be 400–599, got ${fault.status}`);
      if (fault.kind === 'tokenRefusal' && fault.code !== undefined && !isTokenRefusalCode(fault.code))
        throw new RangeError(
          `a token refusal's code must be ${TOKEN_REFUSAL_CODES.join(' or ')}, got ${fault.code}`,
        );
      checkHold(fault);
      this.#queue.push({ ...fault });
    }
  }

  /** Number of queued faults not yet used. */
  pending(): number {
    return this.#queue.length;
  }

  /** Picks the fault for a request to `path` (an /oauth/token or /api/v1/ path). */
  decide(path: string): FaultDecision {
    const { pathPattern } = this.#config;
    const configApplies = pathPattern === undefined || new RegExp(pathPattern).test(path);
    const latencyMs = configApplies ? this.#latencyMs() : 0;
    const queuedIndex = this.#queue.findIndex((fault) =>
      // A token refusal means nothing on another path: it waits for the next token request.
      fault.kind === 'tokenRefusal'
        ? path === TOKEN_PATH
        : fault.pathPattern === undefined || new RegExp(fault.pathPattern).test(path),
    );
    const queued = queuedIndex >= 0 ? this.#queue.splice(queuedIndex, 1)[0] : undefined;
    if (queued) {
      return {
        kind: queued.kind,
        retryAfterSeconds: queued.retryAfterSeconds ?? this.#config.retryAfterSeconds,
        latencyMs,
        ...(queued.kind === 'reject'
          ? { reject: { status: queued.status ?? 422, code: queued.code ?? 'rejected' } }
          : {}),
        ...(queued.kind === 'silent' || queued.kind === 'stall'
          ? { afterBytes: queued.afterBytes ?? 0 }
          : {}),
        ...(queued.kind === 'stall' ? { stallMs: queued.stallMs ?? 0 } : {}),
        ...(queued.kind === 'tokenRefusal'
          ? {
              tokenRefusal:
                queued.code !== undefined && isTokenRefusalCode(queued.code) ? queued.code : 'invalid_grant',
            }
          : {}),
      };
    }
    const kind = configApplies ? this.#randomKind(path) : null;
    return {
      kind,
      retryAfterSeconds: this.#config.retryAfterSeconds,
      latencyMs,
      ...(kind === 'tokenRefusal' ? { tokenRefusal: this.#config.tokenRefusalCode } : {}),
      ...(kind === 'silent' ? { afterBytes: 0 } : {}),
    };
  }

  #latencyMs(): number {
    const { latencyMs, latencySpikeRate, latencySpikeMs } = this.#config;
    const spike = latencySpikeRate > 0 && this.#random() < latencySpikeRate ? latencySpikeMs : 0;
    return latencyMs + spike;
  }

  /**
   * One draw against cumulative ranges, so each rate is the exact probability of its fault (token
   * refusals count on the token path only: elsewhere no draw is made for them, so a seed replays
   * the other faults as it did before they existed; silent calls come last for the same reason).
   */
  #randomKind(path: string): FaultKind | null {
    const { dropBeforeRate, rate503, rate429, dropAfterRate, gateway404Rate, silentRate } = this.#config;
    const tokenRefusalRate = path === TOKEN_PATH ? this.#config.tokenRefusalRate : 0;
    const total = dropBeforeRate + rate503 + rate429 + dropAfterRate + gateway404Rate + tokenRefusalRate;
    if (total + silentRate === 0) return null;
    const draw = this.#random();
    let threshold = dropBeforeRate;
    if (draw < threshold) return 'dropBefore';
    threshold += rate503;
    if (draw < threshold) return '503';
    threshold += rate429;
    if (draw < threshold) return '429';
    threshold += dropAfterRate;
    if (draw < threshold) return 'dropAfter';
    threshold += gateway404Rate;
    if (draw < threshold) return 'gateway404';
    threshold += tokenRefusalRate;
    if (draw < threshold) return 'tokenRefusal';
    threshold += silentRate;
    if (draw < threshold) return 'silent';
    return null;
  }
}
