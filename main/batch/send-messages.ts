/**
 * The words of a document's failure while sending, from the service's answer: one place, so
 * the step machine decides and never phrases.
 */
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

/** `at about 2026-11-23 12:13 (UTC+01:00)`: this computer's local time, its offset said. */
function whenSent(iso: string | undefined): string {
  const at = iso === undefined ? Number.NaN : Date.parse(iso);
  if (Number.isNaN(at)) return 'during an earlier run';
  const date = new Date(at);
  const two = (value: number) => String(value).padStart(2, '0');
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const zone = `UTC${sign}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
  return `at about ${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())} (${zone})`;
}

/**
 * The plain words of a document that needs the user's check: what happened, why the app will
 * not send it again by itself, where to look and what each answer does.
 */
export function checkExplanation(document: DocumentState): string {
  const check = document.send.check;
  if (!check) return '';
  const reference = document.draft.externalReference;
  const sent = `The app sent ${reference} to the service ${whenSent(check.firstAttemptAt)}, but the answer was lost.`;
  const look = `Look for ${reference} on the service's own website, or ask its support`;
  switch (check.reason) {
    case 'key_refused': {
      // The service's own words go last, for its support: they may say "upload again", which is
      // not one of the answers here.
      const detail = check.code
        ? ` Details for the service's support: error "${check.code}"${check.serviceMessage ? `, "${check.serviceMessage}"` : ''}.`
        : '';
      return `A signing request for ${reference} may already exist at the service. ${sent} When it tried again, the service refused it, so the app cannot tell whether the first attempt created the request, and it will not send ${reference} again by itself. ${look}: if a request is there, link it; if not, send ${reference} as a new request.${detail}`;
    }
    case 'new_request_after_unknown':
      return `${reference} may now have two signing requests at the service. ${sent} When it tried again, the service created ${check.newRequestId ?? 'a new request'} instead of recognising the first attempt. ${look}: keep ${check.newRequestId ?? 'the new one'} if it is the only one, or link the earlier one. The app cannot cancel the other: it stays at the service until the service's support removes it.`;
    case 'created_without_id':
      return `The service accepted ${reference}'s signing request but did not say its id, so the app cannot follow it. ${look}, then link its request.`;
  }
}
