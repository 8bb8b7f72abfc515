import type { BatchDefaults, DocumentDraft, SigningOptions } from '../../shared/domain/batch';
import type { CreateSigningRequestBody, Participant } from '../../shared/service/wire';

/** A document's options: its own where set, else the batch defaults. */
export function effectiveOptions(defaults: BatchDefaults, draft: DocumentDraft): SigningOptions {
  const { defaultRecipients: _recipients, ...batchOptions } = defaults;
  const own = Object.fromEntries(Object.entries(draft.options).filter(([, value]) => value !== undefined));
  return { ...batchOptions, ...own };
}

/** The document's recipients followed by the batch's default recipients, one per e-mail address. */
export function effectiveRecipients(defaults: BatchDefaults, draft: DocumentDraft): Participant[] {
  const seen = new Set<string>();
  return [...draft.recipients, ...defaults.defaultRecipients].filter((recipient) => {
    const email = recipient.email.toLowerCase();
    if (seen.has(email)) return false;
    seen.add(email);
    return true;
  });
}

/**
 * The body of the creation call for a document (spec §4.3). Deterministic: the same batch,
 * document and upload always give the same body, which the Idempotency-Key replay relies on.
 * Options that are not set are left out rather than guessed.
 */
export function buildCreateBody(
  defaults: BatchDefaults,
  draft: DocumentDraft,
  uploadId: string,
): CreateSigningRequestBody {
  const options = effectiveOptions(defaults, draft);
  const signing =
    options.enforceOrder === undefined && options.ownerMustSign === undefined
      ? undefined
      : {
          ...(options.enforceOrder === undefined ? {} : { enforce_order: options.enforceOrder }),
          ...(options.ownerMustSign === undefined ? {} : { owner: { must_sign: options.ownerMustSign } }),
        };
  const ceremony =
    options.ceremonyMode === undefined && options.meetingProvider === undefined
      ? undefined
      : {
          ...(options.ceremonyMode === undefined ? {} : { mode: options.ceremonyMode }),
          ...(options.meetingProvider === undefined ? {} : { meeting_provider: options.meetingProvider }),
        };
  return {
    external_reference: draft.externalReference,
    ...(options.transactionType === undefined ? {} : { transaction_type: options.transactionType }),
    document: { upload_id: uploadId },
    recipients: effectiveRecipients(defaults, draft),
    ...(signing ? { signing } : {}),
    ...(ceremony ? { ceremony } : {}),
    ...(options.evidenceLevel === undefined ? {} : { evidence_level: options.evidenceLevel }),
    ...(options.locale === undefined ? {} : { locale: options.locale }),
  };
}
