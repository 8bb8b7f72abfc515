/**
 * The words of a document's failure while sending, from the service's answer: one place, so
 * the step machine decides and never phrases.
 */
import type { MessageId } from '../../shared/i18n/catalog';
import { englishWords, type Translator } from '../../shared/i18n/translator';
import { isCatalogCode, userMessage } from '../../shared/service/error-catalog';
import type { ServiceErrorCode } from '../../shared/service/error-codes';
import type { ServiceFailure } from './service-failure';
import type { DocumentState } from './batch-state';

/** What a failed document shows: the code, the message a user reads, and whether Retry can help. */
export interface FailureWords {
  readonly code: ServiceErrorCode;
  readonly message: string;
  readonly retryable: boolean;
  /** The service's own words, verbatim, so a view can word the failure anew in its language. */
  readonly serviceMessage?: string;
}

/** How a failure is worded: the catalog's (or the unknown code's), or one of a step's own. */
type Wording = 'catalog' | 'createRefused' | 'uploadRefusedAgain';

function serviceDetail(code: string, serviceMessage: string | undefined, t: Translator['t']): string {
  const message = serviceMessage?.trim();
  return message
    ? t('errors.serviceDetailWithMessage', { code, message })
    : t('errors.serviceDetail', { code });
}

function worded(
  wording: Wording,
  code: string,
  serviceMessage: string | undefined,
  t: Translator['t'],
): string {
  switch (wording) {
    case 'catalog':
      return userMessage(code, serviceMessage, t);
    case 'createRefused':
      return t('errors.createRefused', { detail: serviceDetail(code, serviceMessage, t) });
    case 'uploadRefusedAgain':
      return t('errors.uploadRefusedAgain', { detail: serviceDetail(code, serviceMessage, t) });
  }
}

function words(
  wording: Wording,
  failure: Pick<ServiceFailure, 'code' | 'retryable'> & Partial<Pick<ServiceFailure, 'serviceMessage'>>,
): FailureWords {
  return {
    code: failure.code,
    retryable: failure.retryable,
    message: worded(wording, failure.code, failure.serviceMessage, englishWords()),
    ...(failure.serviceMessage === undefined ? {} : { serviceMessage: failure.serviceMessage }),
  };
}

/**
 * The words for a failed step: the catalog's for a code it knows; for a creation the service
 * refused with a code of its own, its code and message with what to check.
 */
export function failureMessage(
  failure: Pick<ServiceFailure, 'code' | 'retryable'> &
    Partial<Pick<ServiceFailure, 'serviceMessage' | 'operation'>>,
): FailureWords {
  const ownRefusal = !isCatalogCode(failure.code) && failure.operation === 'createSigningRequest';
  return words(ownRefusal ? 'createRefused' : 'catalog', failure);
}

/** The words when the service kept refusing a document's upload after it was uploaded again. */
export function repeatedUploadRefusalMessage(
  failure: Pick<ServiceFailure, 'code' | 'serviceMessage'>,
): FailureWords {
  return words('uploadRefusedAgain', { ...failure, retryable: true });
}

/** Stands for the service's words while finding them in a wording (never in a real message). */
const SERVICE_WORDS = '\u0000';

/**
 * The service's words inside `message` when it is `wording` for `code` with some service
 * words: how a failure stored before they were kept apart (ItemError.serviceMessage) gives
 * them back.
 */
function serviceWordsIn(wording: Wording, code: string, message: string): string | undefined {
  const parts = worded(wording, code, SERVICE_WORDS, englishWords()).split(SERVICE_WORDS);
  if (parts.length !== 2) return undefined; // this wording does not show the service's words
  const [before = '', after = ''] = parts;
  if (message.length <= before.length + after.length) return undefined;
  if (!message.startsWith(before) || !message.endsWith(after)) return undefined;
  return message.slice(before.length, message.length - after.length);
}

/**
 * A stored failure's message in `t`'s language: it was stored in English, the words of the
 * day it happened; when those are one of the wordings above (for the stored code and service
 * words), they are made anew in `t`'s language, the code and the service's own words kept
 * verbatim. Other words (an older app's) stay as they were.
 */
export function errorMessageIn(
  error: Pick<FailureWords, 'code' | 'message' | 'serviceMessage'>,
  t: Translator['t'],
): string {
  const wordings: readonly Wording[] = ['catalog', 'createRefused', 'uploadRefusedAgain'];
  for (const wording of wordings) {
    // A catalog code's words leave the service's out; a failure stored before they were kept has them only in its message.
    const candidates = new Set([
      error.serviceMessage,
      undefined,
      serviceWordsIn(wording, error.code, error.message),
    ]);
    for (const serviceMessage of candidates)
      if (worded(wording, error.code, serviceMessage, englishWords()) === error.message)
        return worded(wording, error.code, serviceMessage, t);
  }
  return error.message;
}

/**
 * Why a batch's queue waits or stopped, as the engine reports it: a code and what its words
 * need, so each view words it in its own language (engineReasonText).
 */
export interface EngineReason {
  readonly code: EngineStopCode | ServiceErrorCode;
  /** The service's own words, verbatim, when it sent some. */
  readonly serviceMessage?: string;
  /** The service's own code, when `code` is the client's word for its answer (`token_refused`). */
  readonly serviceCode?: string;
  /** For `other_connection`: the connection the batch was sent with. */
  readonly connection?: { readonly baseUrl: string; readonly clientId: string };
  /** The service answer behind it when many documents meet one answer (`ServiceFailure.answerId`). */
  readonly answerId?: number;
}

/**
 * Why the engine stops by itself, whatever the service says: its data folder cannot be written,
 * the batch is unbound or gone, or it was sent with another connection.
 */
export const ENGINE_STOP_CODES = [
  'storage_full',
  'storage_failed',
  'batch_unbound',
  'batch_deleted',
  'other_connection',
] as const;
export type EngineStopCode = (typeof ENGINE_STOP_CODES)[number];

/** The words of each engine stop but `other_connection` (which names the connection). */
const ENGINE_STOPS: Readonly<Record<Exclude<EngineStopCode, 'other_connection'>, MessageId>> = {
  storage_full: 'errors.storageFull',
  storage_failed: 'errors.storageFailed',
  batch_unbound: 'errors.batchUnbound',
  batch_deleted: 'errors.batchDeleted',
};

function isWordedStop(code: EngineReason['code']): code is keyof typeof ENGINE_STOPS {
  return Object.hasOwn(ENGINE_STOPS, code);
}

/** Why the queue waits or stopped, in `t`'s language (English unless given). */
export function engineReasonText(reason: EngineReason, t: Translator['t'] = englishWords()): string {
  if (reason.code === 'other_connection' && reason.connection)
    return t('errors.otherConnection', reason.connection);
  if (isWordedStop(reason.code)) return t(ENGINE_STOPS[reason.code]);
  return userMessage(reason.code, reason.serviceMessage, t, reason.serviceCode);
}

/** `2026-11-23 12:13 (UTC+01:00)`: this computer's local time, its offset said; undefined when unknown. */
function whenSent(iso: string | undefined): string | undefined {
  const at = iso === undefined ? Number.NaN : Date.parse(iso);
  if (Number.isNaN(at)) return undefined;
  const date = new Date(at);
  const two = (value: number) => String(value).padStart(2, '0');
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const zone = `UTC${sign}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())} (${zone})`;
}

/**
 * The plain words of a document that needs the user's check, in `t`'s language (English unless
 * given): what happened, why the app will not send it again by itself, where to look and what
 * each answer does.
 */
export function checkExplanation(document: DocumentState, t: Translator['t'] = englishWords()): string {
  const check = document.send.check;
  if (!check) return '';
  const reference = document.draft.externalReference;
  const at = whenSent(check.firstAttemptAt);
  const sent = at ? t('check.sentAt', { reference, at }) : t('check.sentEarlier', { reference });
  switch (check.reason) {
    case 'key_refused': {
      // The service's own words go last, for its support: they may say "upload again", which is
      // not one of the answers here.
      const detail = check.code
        ? check.serviceMessage
          ? t('check.detailWithMessage', { code: check.code, message: check.serviceMessage })
          : t('check.detail', { code: check.code })
        : '';
      return [t('check.keyRefused', { reference, sent }), detail].filter(Boolean).join(' ');
    }
    case 'new_request_after_unknown':
      return check.newRequestId
        ? t('check.newRequestAfterUnknown', { reference, sent, requestId: check.newRequestId })
        : t('check.newRequestAfterUnknownUnnamed', { reference, sent });
    case 'created_without_id':
      return t('check.createdWithoutId', { reference });
    case 'held_elsewhere': {
      const holder = check.holder;
      const file = holder?.fileName ?? '';
      const batch = holder?.deleted
        ? t('check.batchDeleted', { batch: holder.batchName })
        : (holder?.batchName ?? '');
      return holder?.requestId
        ? t('check.heldElsewhereWithId', { reference, file, batch, requestId: holder.requestId })
        : t('check.heldElsewhere', { reference, file, batch });
    }
    case 'held_at_service': {
      if (check.newRequestId) return t('check.heldAtService', { reference, requestId: check.newRequestId });
      const detail = check.code
        ? check.serviceMessage
          ? t('check.detailWithMessage', { code: check.code, message: check.serviceMessage })
          : t('check.detail', { code: check.code })
        : '';
      return [t('check.heldAtServiceRefused', { reference }), detail].filter(Boolean).join(' ');
    }
  }
}
