import { z } from 'zod';

/**
 * The group a user thinks of a document in — one classification for the whole app: the
 * engine, the poller, the tray, the command line and the renderer all use it. Main computes
 * it (`main/domain/document-class.ts`) and sends it in each document's view; the renderer
 * shows it and never derives it.
 */
export const documentClassSchema = z.enum([
  'not_sent',
  'sending',
  'needs_check',
  'waiting',
  'completed',
  /** Its request ended at the service without completion (declined, expired, cancelled…). */
  'ended',
  /** Its request is in a status this app does not know and that is not final: still read, less often. */
  'unknown_status',
  'failed',
  'gone',
]);
export type DocumentClass = z.infer<typeof documentClassSchema>;
