/**
 * The words of a document's failure while sending, from the service's answer: one place, so
 * the step machine decides and never phrases.
 */
import { isCatalogCode, userMessage } from '../../shared/service/error-catalog';
import type { ServiceFailure } from '../client/service-failure';

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
