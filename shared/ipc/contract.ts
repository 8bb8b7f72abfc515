/**
 * The IPC contract, defined once: every invoke channel with the schemas of its arguments and
 * result, and every main→renderer event with its payload. Main validates arguments with these
 * schemas; the bridge (shared/ipc/bridge.ts, one factory for the preload and the browser host) names one function per channel. Renaming
 * a channel breaks the build on both sides.
 */
import { z } from 'zod';
import { batchDefaultsSchema } from '../domain/batch';
import { languageSettingSchema } from '../i18n/languages';
import type { Result } from '../base/result';
import type { ErrorView } from './views';
import {
  addDocumentsResultSchema,
  appInfoSchema,
  batchDetailSchema,
  batchSummarySchema,
  ceremonyOpenedSchema,
  connectionTestSchema,
  documentEditSchema,
  engineStateSchema,
  manifestImportSchema,
  manifestPreviewSchema,
  profileDependentsSchema,
  profileViewSchema,
  sendPhaseSchema,
  documentViewSchema,
  sendReviewSchema,
  reviewedSendSchema,
  documentContentSchema,
} from './views';

const id = z.string().trim().min(1).max(200);
const name = z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters');
const filePath = z.string().min(1).max(4096);

/**
 * The most files one `documents.addPaths` call takes: a whole batch at the product's goal
 * (10,000 documents). The renderer sends a larger pick in calls of this size.
 */
export const ADD_PATHS_MAX = 10_000;

/**
 * A profile as the page sends it to save (`profiles.save`): the one input of the profile
 * family. Main keeps it as a `ProfileRecord` (main/credentials/profile-store.ts; the secret to
 * the keychain only) and answers with its `ProfileView`.
 */
export const profileInputSchema = z.object({
  name: z.string().trim().min(1, 'is required').max(64, 'must be at most 64 characters'),
  // A bound on what crosses only: main's address rule refuses above 2,048 characters, saying why.
  baseUrl: z.string().trim().min(1, 'is required').max(8192),
  clientId: z.string().trim().min(1, 'is required').max(512),
  /** Set or replace the secret; absent keeps the saved one. Never sent back. */
  secret: z.string().min(1).max(4096).optional(),
  /**
   * How long the service keeps Idempotency-Keys, in hours, when its operator states it; absent:
   * the app's default (an hour). Main's rule says what is accepted.
   */
  keyRetentionHours: z.number().finite().optional(),
});
export type ProfileInput = z.infer<typeof profileInputSchema>;

function channel<A extends z.ZodTuple, R extends z.ZodType>(args: A, result: R) {
  return { args, result };
}

export const invokeChannels = {
  'app.info': channel(z.tuple([]), appInfoSchema),
  /** The language setting ("system" or a language): kept, and the app's info in the new language. */
  'app.setLanguage': channel(z.tuple([languageSettingSchema]), appInfoSchema),
  'profiles.list': channel(z.tuple([]), z.array(profileViewSchema)),
  'profiles.save': channel(z.tuple([profileInputSchema]), profileViewSchema),
  /** What stops if the connection is deleted: its batches' open requests and unfinished documents. */
  'profiles.dependents': channel(z.tuple([name]), profileDependentsSchema),
  /**
   * Deletes a connection and its saved secret. When open requests or unfinished documents depend
   * on it, main refuses (`connection_in_use`) unless `confirmed.dependents` is at least their
   * number now (`profiles.dependents`): the person saw what stops.
   */
  'profiles.delete': channel(
    z.tuple([name, z.object({ dependents: z.number().int().nonnegative() }).strict().optional()]),
    z.null(),
  ),
  'profiles.activate': channel(z.tuple([name]), profileViewSchema),
  'profiles.test': channel(z.tuple([name]), connectionTestSchema),
  'profiles.useDemo': channel(z.tuple([]), profileViewSchema),
  'batches.list': channel(z.tuple([]), z.array(batchSummarySchema)),
  'batches.get': channel(z.tuple([id]), batchDetailSchema),
  'batches.create': channel(z.tuple([name]), batchSummarySchema),
  'batches.rename': channel(z.tuple([id, name]), batchSummarySchema),
  'batches.setDefaults': channel(z.tuple([id, batchDefaultsSchema]), batchSummarySchema),
  'batches.delete': channel(z.tuple([id]), z.null()),
  'dialogs.pickPdfs': channel(z.tuple([]), z.array(filePath)),
  /**
   * The folder picked and the PDFs in it (any kind of entry named .pdf: adding says why one is not a
   * file), with a count of the entries not taken: its subfolders (not searched) and its other files.
   */
  'dialogs.pickFolder': channel(
    z.tuple([]),
    z
      .object({
        folder: filePath,
        paths: z.array(filePath),
        skipped: z.object({ subfolders: z.number().int().min(0), otherFiles: z.number().int().min(0) }),
      })
      .nullable(),
  ),
  'dialogs.pickManifest': channel(z.tuple([]), filePath.nullable()),
  /** Adds PDFs; with a folder (the one they were listed from), each must stay inside it once its links are resolved. */
  'documents.addPaths': channel(
    z.tuple([id, z.array(filePath).min(1).max(ADD_PATHS_MAX), filePath.optional()]),
    addDocumentsResultSchema,
  ),
  'documents.update': channel(z.tuple([id, id, documentEditSchema]), batchDetailSchema),
  'documents.remove': channel(z.tuple([id, id]), batchDetailSchema),
  /** A document's stored copy (batch id, document id), for its preview: never a path the page names. */
  'documents.content': channel(z.tuple([id, id]), documentContentSchema),
  'manifest.preview': channel(z.tuple([filePath]), manifestPreviewSchema),
  'manifest.import': channel(z.tuple([id, filePath]), manifestImportSchema),
  /** What "Send batch" would send, to whom, with which connection, and what stays behind (nothing is sent). */
  'sending.review': channel(z.tuple([id]), sendReviewSchema),
  /** Sends exactly what the person reviewed (`sending.review`'s `reviewed`), or refuses when the batch or its connection changed since. */
  'sending.start': channel(z.tuple([id, reviewedSendSchema]), engineStateSchema),
  /** Goes on with the documents already queued (paused, stopped, interrupted); never one that was not reviewed. */
  'sending.resume': channel(z.tuple([id]), engineStateSchema),
  'sending.pause': channel(z.tuple([id]), engineStateSchema),
  'sending.retry': channel(z.tuple([id, id]), engineStateSchema),
  /** A batch waiting for its service tries again at once, instead of at the end of its wait. */
  'sending.tryNow': channel(z.tuple([id]), engineStateSchema),
  /** A document that needs the user's check: link the request the service already holds (its reference is checked). */
  'sending.linkRequest': channel(
    z.tuple([id, id, id, z.object({ confirmed: z.boolean() }).strict().optional()]),
    engineStateSchema,
  ),
  /** A document that needs the user's check: send it as a new request, on purpose. */
  'sending.sendAsNew': channel(z.tuple([id, id]), engineStateSchema),
  'ceremony.open': channel(z.tuple([id, id]), ceremonyOpenedSchema),
  /**
   * Reads every open request (of one batch, or all) now, within the budget: how many will be read,
   * and `paused` when tracking is paused (they are read once; tracking stays paused). Of every
   * batch: `unreadable`, the open requests of batches whose connection cannot be used now
   * (deleted, its secret missing), which are not read.
   */
  'tracking.refreshNow': channel(
    z.tuple([id.optional()]),
    z.object({
      reading: z.number(),
      unreadable: z.number().optional(),
      paused: z.literal(true).optional(),
    }),
  ),
  /** A request its service said was gone: read it once more at its own service; tracked again if it answers. */
  'tracking.checkAgain': channel(z.tuple([id, id]), z.null()),
  'tracking.setPaused': channel(z.tuple([z.boolean()]), z.null()),
  'report.csv': channel(z.tuple([id]), z.string()),
  /** Asks where to save (a dialog in main: the page never chooses a path to write) and writes the CSV; null when cancelled. */
  'report.export': channel(z.tuple([id]), filePath.nullable()),
} as const;

export type InvokeChannel = keyof typeof invokeChannels;
export type ChannelArgs<C extends InvokeChannel> = z.infer<(typeof invokeChannels)[C]['args']>;
export type ChannelResult<C extends InvokeChannel> = z.infer<(typeof invokeChannels)[C]['result']>;

export const eventChannels = {
  /** A batch changed (documents added, sent, tracked…): its new summary. */
  'batch.changed': z.object({ batch: batchSummarySchema }),
  'batch.deleted': z.object({ batchId: id }),
  /** Upload bytes and steps of one document, as they happen (not stored). */
  'sending.progress': z.object({
    batchId: id,
    documentId: id,
    phase: sendPhaseSchema,
    sentBytes: z.number().optional(),
    totalBytes: z.number().optional(),
    /** While uploading: its bytes on their way, all handed over and awaiting the service, or sent again after a drop. */
    upload: z.enum(['sending', 'confirming', 'sending_again']).optional(),
  }),
  'sending.state': z.object({ batchId: id, engine: engineStateSchema }),
  /** A document's status at its service changed: the document as main sees it now (its class, whether its ceremony can open). */
  'tracking.status': z.object({ batchId: id, documentId: id, document: documentViewSchema }),
  'tracking.completed': z.object({ batchId: id, documentId: id, externalReference: z.string() }),
  'ceremony.closed': z.object({ batchId: id, documentId: id }),
  'profiles.changed': z.object({ profiles: z.array(profileViewSchema) }),
  /** Tracking was paused or resumed (from the tray or the window). */
  'tracking.paused': z.object({ paused: z.boolean() }),
  /** A request was read at its service: when it was last checked. */
  'tracking.checked': z.object({ batchId: id, documentId: id, at: z.string() }),
  /** The system keychain keeps a call waiting (its own prompt may have opened), or answered every call. */
  'keychain.waiting': z.object({ waiting: z.boolean() }),
} as const;

export type EventChannel = keyof typeof eventChannels;
export type EventPayload<E extends EventChannel> = z.infer<(typeof eventChannels)[E]>;

/** What crosses the bridge for every call: a value, or an error a user can read. */
export type IpcResult<T> = Result<T, ErrorView>;

/** The handlers main implements: one async function per channel, taking parsed arguments. */
export type DeskHandlers = {
  readonly [C in InvokeChannel]: (...args: ChannelArgs<C>) => Promise<ChannelResult<C>>;
};

/** Formats a schema failure as one plain sentence ("argument 2 (name): is required"). */
export function describeArgumentIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const [index, ...rest] = issue.path;
      const where =
        typeof index === 'number'
          ? `argument ${index + 1}${rest.length ? ` (${rest.join('.')})` : ''}`
          : 'arguments';
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}
