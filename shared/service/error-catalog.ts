/**
 * One catalog of user-facing messages for every error the service documents (spec §7) and
 * every failure the client itself can report. Unknown codes are shown with their code and the
 * service's message, never hidden.
 */

export interface CatalogEntry {
  /** What happened, in plain words. */
  readonly title: string;
  /** What the user can do about it. */
  readonly action: string;
}

export const ERROR_CATALOG = {
  // Upload errors (spec §7)
  invalid_content_type: {
    title: 'The service refused the file type',
    action: 'Only PDF files can be sent. Check that the file is a PDF; if it is, report this to support.',
  },
  missing_pdf: {
    title: 'The PDF file is empty',
    action: 'Remove this document and add the PDF again from a copy that opens correctly.',
  },
  pdf_too_large: {
    title: 'The PDF is larger than 50 MiB',
    action: 'Reduce the file (for example, compress images or split the document) and add it again.',
  },
  invalid_pdf: {
    title: 'The file is not a valid PDF',
    action: 'It does not start with a PDF header. Export it again as PDF and add the new file.',
  },
  upstream_unavailable: {
    title: 'The signing service is temporarily unavailable',
    action: 'Nothing is lost: the app retries by itself. If it lasts, try again later.',
  },
  // Ceremony errors (spec §7)
  signing_request_not_found: {
    title: 'The signing request no longer exists for this connection',
    action: 'It may have been removed, or belongs to another connection. Check the selected connection.',
  },
  signing_request_not_ready: {
    title: 'The signing request is not ready for this step',
    action: 'Wait until it has been prepared, then try again.',
  },
  participant_forbidden: {
    title: 'This connection may not add participants to the request',
    action: 'Ask your administrator to grant the ceremony.create permission to this client.',
  },
  participant_conflict: {
    title: 'The participant conflicts with the request',
    action:
      'The participant may already be on the request, or the request is already prepared. Check the recipients and signing order.',
  },
  invalid_participant_request: {
    title: 'The service rejected the participant',
    action: 'Check the participant type, role, name, e-mail and signing order.',
  },
  prepare_forbidden: {
    title: 'This connection may not prepare the request',
    action: 'Ask your administrator to grant the ceremony.create permission to this client.',
  },
  prepare_conflict: {
    title: 'The request cannot be prepared in its current state',
    action: 'It may already be prepared. Refresh its status.',
  },
  invalid_prepare_request: {
    title: 'The service rejected the preparation',
    action: 'Check that the request has at least one signer, then retry.',
  },
  widget_session_forbidden: {
    title: 'This connection may not open ceremonies for the request',
    action: 'Ask your administrator to grant the ceremony.create permission to this client.',
  },
  widget_session_conflict: {
    title: 'A ceremony cannot be opened in the current signing state',
    action: 'The request may already be completed. Refresh its status.',
  },
  invalid_widget_session_request: {
    title: 'The service rejected the ceremony request',
    action: 'Retry; if it persists, report it to support with the request reference.',
  },
  // Failures the client reports itself
  network_unreachable: {
    title: 'The signing service cannot be reached',
    action: 'Check the network or VPN. Sending pauses and resumes by itself when the service is back.',
  },
  timeout: {
    title: 'The signing service did not answer in time',
    action: 'The app retries by itself; nothing is sent twice.',
  },
  rate_limited: {
    title: 'The signing service asked the app to slow down',
    action: 'The app waits as asked and continues by itself.',
  },
  credentials_rejected: {
    title: 'The service rejected the connection credentials',
    action: 'Check the client id and client secret of this connection, then test the connection again.',
  },
  insufficient_scope: {
    title: 'This connection lacks a permission the operation needs',
    action: 'Ask your administrator to grant the scopes signing.create, signing.read and ceremony.create.',
  },
  idempotency_key_reused: {
    title: 'The service refused a repeated request with different content',
    action: 'The document changed after it was first sent. Report this to support; nothing was sent twice.',
  },
  upload_expired: {
    title: 'The uploaded file expired before the request was created',
    action: 'The app uploads the document again by itself.',
  },
  upload_not_found: {
    title: 'The service does not know the uploaded file',
    action: 'The app uploads the document again by itself.',
  },
  sha256_mismatch: {
    title: 'The service received different content than the file on this computer',
    action:
      'The upload was corrupted on the way. Retry the document; if it happens again, check the network.',
  },
  local_file_changed: {
    title: "The app's copy of the document changed or vanished on this computer",
    action: 'Remove the document from the batch and add the PDF again.',
  },
  local_copy_missing: {
    title: "The app's copy of the document is missing from its data folder",
    action: 'Remove the document from the batch and add the PDF again.',
  },
  gateway_not_found: {
    title: "The service's address answered 'not found' without saying why",
    action:
      'A gateway in front of the service may be failing, or the address may be wrong. Sending resumes by itself.',
  },
  gateway_error: {
    title: 'A gateway in front of the signing service got no answer from it',
    action: 'The service may be restarting or down. The app retries by itself; if it lasts, try again later.',
  },
  invalid_response: {
    title: 'The signing service sent an answer the app does not understand',
    action: 'Check that the connection points to a signing service (base URL), then retry.',
  },
  service_error: {
    title: 'The signing service reported an error',
    action: 'Retry later; if it persists, report it to support with the code shown.',
  },
} as const satisfies Record<string, CatalogEntry>;

export type CatalogCode = keyof typeof ERROR_CATALOG;

/** True when the catalog has a message for this code. */
export function isCatalogCode(code: string): code is CatalogCode {
  return Object.hasOwn(ERROR_CATALOG, code);
}

/**
 * The message a user sees for an error: the catalog's words for a known code; for an unknown
 * code, the code itself with the service's message so nothing is hidden.
 */
export function userMessage(code: string, serviceMessage?: string): string {
  if (isCatalogCode(code)) {
    const entry = ERROR_CATALOG[code];
    return `${entry.title}. ${entry.action}`;
  }
  const detail = serviceMessage?.trim() ? `: ${serviceMessage.trim()}` : '';
  return `The signing service answered with error "${code}"${detail}`;
}
