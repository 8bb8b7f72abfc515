/**
 * The words of a document's failure while sending, from the service's answer: one place, so
 * the step machine decides and never phrases.
 */
import { createTranslator, type Translator } from '../../shared/i18n/translator';
import { isCatalogCode, userMessage } from '../../shared/service/error-catalog';
import type { ServiceFailure } from '../client/service-failure';
import type { DocumentState } from './batch-state';

/** What a failed document shows: the code, the message a user reads, and whether Retry can help. */
export interface FailureWords {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

function serviceDetail(failure: Pick<ServiceFailure, 'code' | 'serviceMessage'>): string {
  const message = failure.serviceMessage?.trim();
  return `error "${failure.code}"${message ? `: ${message}` : ''}`;
}

/**
 * The words for a failed step: the catalog's for a code it knows; for a creation the service
 * refused with a code of its own, its code and message with what to check.
 */
export function failureMessage(
  failure: Pick<ServiceFailure, 'code' | 'retryable'> &
    Partial<Pick<ServiceFailure, 'serviceMessage' | 'operation'>>,
): FailureWords {
  if (!isCatalogCode(failure.code) && failure.operation === 'createSigningRequest') {
    return {
      code: failure.code,
      retryable: failure.retryable,
      message: `The service refused to create the signing request (${serviceDetail(failure)}). Check this document's recipients and options, correct them, then retry it.`,
    };
  }
  return {
    code: failure.code,
    retryable: failure.retryable,
    message: userMessage(failure.code, failure.serviceMessage),
  };
}

/** The words when the service kept refusing a document's upload after it was uploaded again. */
export function repeatedUploadRefusalMessage(
  failure: Pick<ServiceFailure, 'code' | 'serviceMessage'>,
): FailureWords {
  return {
    code: failure.code,
    retryable: true,
    message: `The service refused this document's upload again after it was uploaded twice more (${serviceDetail(failure)}). Nothing was created. Retry later; if it keeps happening, report it to the service's support.`,
  };
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

let englishT: Translator['t'] | undefined;

/**
 * The plain words of a document that needs the user's check, in `t`'s language (English unless
 * given): what happened, why the app will not send it again by itself, where to look and what
 * each answer does.
 */
export function checkExplanation(
  document: DocumentState,
  t: Translator['t'] = (englishT ??= createTranslator('en').t),
): string {
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
  }
}
