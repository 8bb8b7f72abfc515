/**
 * Every code a failed call can give the page (a failed call's `error`, a document's error view):
 * the service's (shared/service/error-codes.ts), the desk's own and the bridge's. The page tells
 * some apart (`review_outdated`, `link_needs_confirmation`…); main writes each one by name, so a
 * misspelt code does not compile.
 */
import type { ServiceErrorCode } from '../service/error-codes';

/** Failures of the desk's own operations (main/app/desk-error.ts), each a case the page words. */
export const DESK_ERROR_CODES = [
  // Batches and their documents.
  'batch_not_found',
  'document_not_found',
  'document_locked',
  'document_copy_missing',
  'document_too_large',
  'not_a_manifest',
  'manifest_invalid',
  'report_not_saved',
  'folder_not_found',
  // Sending and the answers to a check.
  'review_outdated',
  'already_sending',
  'check_answer_refused',
  'link_needs_confirmation',
  'service_unreachable',
  'still_gone',
  // Ceremonies.
  'not_prepared',
  'ceremony_unavailable',
  'ceremony_window_failed',
  'widget_session_expired',
  'widget_url_rejected',
  // Connections, their settings and the keychain.
  'no_connection',
  'connection_missing',
  'connection_unknown',
  'connection_changed',
  'connection_in_use',
  'profile_not_found',
  'reserved_name',
  'demo_unavailable',
  'invalid_profile',
  'secret_missing',
  'settings_unreadable',
  'settings_not_saved',
  'keychain_unavailable',
  // "Test connection": a token without a scope the desk needs.
  'missing_scopes',
  // The browser host: no browser to open the app in, or the host already stopped.
  'browser_missing',
  'host_stopped',
] as const;

/** Failures of a call on its way between the page and main: no handler ever answered it. */
export const BRIDGE_ERROR_CODES = [
  'unknown_channel',
  'invalid_arguments',
  'internal_error',
  'forbidden_sender',
  'ipc_failed',
  'invalid_message',
  // The browser host's ledger: a request id already used for another request (nothing run).
  'request_id_reused',
  'bridge_unavailable',
  'bridge_no_answer',
  'bridge_disconnected',
] as const;

/** Why a PDF cannot be sent, found by the app's own check with the service's upload rules (spec §7). */
export const PDF_PROBLEM_CODES = ['missing_pdf', 'pdf_too_large', 'invalid_pdf', 'unreadable_file'] as const;

/**
 * Why a file (picked, or named in a manifest) was not added to a batch: its PDF check's finding,
 * or the same contract already in the batch. The page gets the code with main's words.
 */
export const NOT_ADDED_CODES = [...PDF_PROBLEM_CODES, 'already_in_batch'] as const;

export type PdfProblemCode = (typeof PDF_PROBLEM_CODES)[number];
export type NotAddedCode = (typeof NOT_ADDED_CODES)[number];
export type DeskErrorCode = (typeof DESK_ERROR_CODES)[number];
export type BridgeErrorCode = (typeof BRIDGE_ERROR_CODES)[number];

/** A code an error view carries. */
export type ErrorCode = DeskErrorCode | BridgeErrorCode | ServiceErrorCode;
