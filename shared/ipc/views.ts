/**
 * What the renderer sees of the app: plain, serialisable views. Main builds them; the
 * renderer displays them and never invents state. No view carries a secret.
 */
import { z } from 'zod';
import {
  batchDefaultsSchema,
  checkReasonSchema,
  documentDraftSchema,
  SEND_PHASES,
  signingOptionsSchema,
} from '../domain/batch';
import { documentClassSchema } from '../domain/document-class';
import { personSchema } from '../domain/people';
import { participantSchema } from '../service/wire';
import { LANGUAGES, languageSettingSchema } from '../i18n/languages';
import { NOT_ADDED_CODES, type ErrorCode } from './error-codes';

export const sendPhaseSchema = z.enum(SEND_PHASES);

/** Any string, typed as a code: a service may send codes no list has (shared/service/error-codes.ts). */
const errorCodeSchema = z.custom<ErrorCode>((value) => typeof value === 'string');

export const errorViewSchema = z.object({ code: errorCodeSchema, message: z.string() });
export type ErrorView = z.infer<typeof errorViewSchema>;

/**
 * A profile as the page sees it ("a connection" on screen): a saved one (main's `ProfileRecord`,
 * never its secret) or the demo, and which one is active. What `profiles.*` answers.
 */
export const profileViewSchema = z.object({
  name: z.string(),
  baseUrl: z.string(),
  clientId: z.string(),
  hasSecret: z.boolean(),
  /** How long the service keeps Idempotency-Keys, in hours, as its operator states it (absent: the default). */
  keyRetentionHours: z.number().optional(),
  /** Where the saved secret belongs when not this address (the settings were changed outside the app). */
  secretSavedFor: z.string().optional(),
  active: z.boolean(),
  /** The built-in simulator's demo connection. */
  demo: z.boolean(),
});
export type ProfileView = z.infer<typeof profileViewSchema>;

/**
 * What stops when a connection is deleted (`profiles.dependents`, main/app/connection-dependents.ts):
 * its batches' requests still read until final, and their documents still on their way or waiting
 * for the person's check. Nothing is cancelled at the service; they go on once a connection to
 * the same service and client id is added again.
 */
export const profileDependentsSchema = z.object({
  /** Requests waiting for signatures at the service, which the app would stop reading. */
  openRequests: z.number().int().nonnegative(),
  /** Documents on their way or waiting for the person's check, which would wait. */
  unfinished: z.number().int().nonnegative(),
  /** The batches concerned, the most concerned first. */
  batches: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      openRequests: z.number().int().nonnegative(),
      unfinished: z.number().int().nonnegative(),
    }),
  ),
  /** It is the active connection: new batches have none once it is deleted. */
  active: z.boolean(),
  /** Another saved connection to the same service and client id, which keeps its batches going. */
  servedBy: z.string().optional(),
});
export type ProfileDependents = z.infer<typeof profileDependentsSchema>;

export const connectionTestSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), scopes: z.array(z.string()), expiresInSeconds: z.number().optional() }),
  z.object({ ok: z.literal(false), code: errorCodeSchema, message: z.string() }),
]);
export type ConnectionTest = z.infer<typeof connectionTestSchema>;

export const trackedStatusSchema = z.object({
  status: z.string(),
  documentStatus: z.string().optional(),
  evidenceReady: z.boolean(),
  preparedAt: z.string().optional(),
  openedAt: z.string().optional(),
  finalizedAt: z.string().optional(),
  readAt: z.string(),
  final: z.boolean(),
});

/**
 * A document as the page sees it: its `DocumentState` (main/domain/batch-state.ts) flattened and
 * worded by main (main/app/batch-views.ts), with its class, problems and what can be done with it;
 * the renderer never derives them.
 */
export const documentViewSchema = z.object({
  id: z.string(),
  /** The group a user thinks of it in, computed by main (the renderer never derives it). */
  class: documentClassSchema,
  /** When its request was last read at its service (ISO), if ever. */
  lastCheckedAt: z.string().optional(),
  /** When its request was prepared (ISO): the service's time once read, else the app's own. */
  preparedAt: z.string().optional(),
  externalReference: z.string(),
  originalName: z.string(),
  storedFilename: z.string(),
  sizeBytes: z.number(),
  sha256: z.string(),
  recipients: z.array(participantSchema),
  extraParticipants: z.array(participantSchema),
  /** Everyone who receives it, in signing order, each with where they come from (main/domain/people-of.ts). */
  people: z.array(personSchema),
  options: signingOptionsSchema,
  phase: sendPhaseSchema,
  /** Why it cannot be sent yet, in plain words; empty when ready. */
  problems: z.array(z.string()),
  /**
   * Not sent yet, and another batch's document already holds, or may hold, a request for its
   * reference at its service: it is held back (its problems say so) unless sent anew on purpose.
   */
  heldBy: z
    .object({
      batchId: z.string(),
      batchName: z.string(),
      fileName: z.string(),
      requestId: z.string().optional(),
      /** Its batch was deleted since (nothing to open). */
      deleted: z.boolean().optional(),
    })
    .optional(),
  /** Sent to the service: its content can no longer change. */
  locked: z.boolean(),
  requestId: z.string().optional(),
  error: errorViewSchema.optional(),
  /**
   * The app cannot know whether the service already holds a request for this document: it will
   * not send it again by itself. `explanation` says so in plain words, with when the first
   * attempt left; the user links the existing request or sends a new one on purpose.
   */
  check: z
    .object({
      reason: checkReasonSchema,
      explanation: z.string(),
      firstAttemptAt: z.string().optional(),
      newRequestId: z.string().optional(),
      /** For `held_elsewhere`: the document of the data folder that holds the reference. */
      holder: z
        .object({
          batchId: z.string(),
          batchName: z.string(),
          fileName: z.string(),
          requestId: z.string().optional(),
          /** Its batch was deleted since (nothing to open). */
          deleted: z.boolean().optional(),
        })
        .optional(),
    })
    .optional(),
  tracking: trackedStatusSchema.optional(),
  gone: z.boolean(),
  canOpenCeremony: z.boolean(),
  updatedAt: z.string(),
});
export type DocumentView = z.infer<typeof documentViewSchema>;

/**
 * How many documents of a batch are in each group (shared/domain/document-counts.ts): main
 * counts its classification with `countByClass`, the function the page counts its documents
 * with, so the batch list, the progress line, the filters and the glance say the same.
 */
export const countsSchema = z.record(documentClassSchema, z.number().int().nonnegative());
export type Counts = z.infer<typeof countsSchema>;

export const engineStateSchema = z.object({
  state: z.enum(['idle', 'running', 'waiting', 'paused', 'finished', 'stopped']),
  reason: z.string().optional(),
  resumesAt: z.number().optional(),
  /**
   * A call has had no answer for longer than a normal one takes, and the service has not answered
   * since: it is slow to answer. Said by the page while sending runs; a wait says why itself.
   */
  slow: z.boolean().optional(),
});
export type EngineStateView = z.infer<typeof engineStateSchema>;

export const batchSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  documentCount: z.number(),
  counts: countsSchema,
  connection: z.object({ baseUrl: z.string(), clientId: z.string() }).optional(),
  engine: engineStateSchema,
  /** Why the batch's own connection cannot be used now (deleted, secret missing): it is never read with another. */
  connectionProblem: z.string().optional(),
});
export type BatchSummary = z.infer<typeof batchSummarySchema>;

export const batchDetailSchema = batchSummarySchema.extend({
  defaults: batchDefaultsSchema,
  documents: z.array(documentViewSchema),
});
export type BatchDetail = z.infer<typeof batchDetailSchema>;

export const rejectedFileSchema = z.object({
  path: z.string(),
  code: z.enum(NOT_ADDED_CODES),
  message: z.string(),
});

export const addDocumentsResultSchema = z.object({
  added: z.number(),
  rejected: z.array(rejectedFileSchema),
});
export type AddDocumentsResult = z.infer<typeof addDocumentsResultSchema>;

export const manifestIssueViewSchema = z.object({
  /** The row as the spreadsheet shows it (the header is row 1); 0 for the whole file. */
  row: z.number(),
  /** The column's name in the header, and its letter in the spreadsheet (A, B, … AA). */
  column: z.string().optional(),
  columnLetter: z.string().optional(),
  message: z.string(),
  /** The whole sentence a user reads, with row and column. */
  text: z.string(),
});

export const manifestPreviewSchema = z.object({
  path: z.string(),
  documents: z.array(
    z.object({
      externalReference: z.string(),
      documentColumn: z.string(),
      storedFilename: z.string(),
      recipients: z.array(participantSchema),
      rows: z.array(z.number()),
    }),
  ),
  /** Documents whose rows are correct, and everyone they go to (`documents` lists the first ones only). */
  documentCount: z.number().int().nonnegative(),
  recipientCount: z.number().int().nonnegative(),
  /** The first problems (then one saying how many more). */
  issues: z.array(manifestIssueViewSchema),
  /** Every problem found, listed or not. */
  problemCount: z.number().int().nonnegative(),
});
export type ManifestPreview = z.infer<typeof manifestPreviewSchema>;

export const manifestImportSchema = z.object({
  added: z.number(),
  updated: z.number(),
  unchanged: z.number(),
  /** Documents already sent whose manifest rows changed since: the change is not applied. */
  lockedChanges: z.array(z.string()),
  rejected: z.array(rejectedFileSchema),
});
export type ManifestImport = z.infer<typeof manifestImportSchema>;

export const documentEditSchema = documentDraftSchema
  .pick({ externalReference: true, recipients: true, extraParticipants: true, options: true })
  .partial();
export type DocumentEdit = z.infer<typeof documentEditSchema>;

export const appInfoSchema = z.object({
  host: z.enum(['electron', 'browser']),
  version: z.string(),
  dataDir: z.string(),
  trackingPaused: z.boolean(),
  /** The language the desk speaks, its formatting locale (e.g. "fr-CH") and the person's setting. */
  language: z.enum(LANGUAGES),
  locale: z.string(),
  languageSetting: languageSettingSchema,
  /** The language "system" speaks here (the OS's), for the setting's "System (Deutsch)". */
  systemLanguage: z.enum(LANGUAGES),
  /** Batches of the data folder that could not be read: left untouched, shown so nobody sends them again. */
  damagedBatches: z.array(z.object({ batchId: z.string(), problem: z.string() })),
});
export type AppInfo = z.infer<typeof appInfoSchema>;

/** A ceremony window just opened with a link valid this long, or the open one was brought to the front. */
export const ceremonyOpenedSchema = z.union([
  z.object({ alreadyOpen: z.literal(false), expiresInSeconds: z.number() }),
  z.object({ alreadyOpen: z.literal(true) }),
]);

/**
 * What "Send batch" is about to do, as main computes it (`sending.review`): which documents go
 * (the very ones the engine queues), to how many people, with which connection, and which
 * documents stay behind and why. `connection` is absent, and `connectionProblem` says why, when
 * the batch's connection cannot be used; nothing can be sent then.
 */
/**
 * What the person reviewed, given back when they confirm (`sending.start`): the documents that
 * were to go, a fingerprint of what they were (`digest`: their files, references, recipients and
 * options, and the batch's defaults), and the connection. Main sends exactly these, or refuses
 * (`review_outdated`) when the batch or its connection changed since.
 */
export const reviewedSendSchema = z
  .object({
    documentIds: z.array(z.string().min(1).max(200)).max(100_000),
    digest: z.string().min(1).max(200),
    connection: z
      .object({ baseUrl: z.string().min(1).max(2048), clientId: z.string().min(1).max(512) })
      .strict(),
  })
  .strict();
export type ReviewedSend = z.infer<typeof reviewedSendSchema>;

export const sendReviewSchema = z.object({
  documentIds: z.array(z.string()),
  /** Distinct people (by e-mail address) across the documents that go: recipients and participants added later. */
  people: z.number(),
  connection: z
    .object({
      /** The connection's name among the user's; absent when none of them names it. */
      name: z.string().optional(),
      baseUrl: z.string(),
      clientId: z.string(),
      /** True when the batch is bound to it already (sent with it before); false: the active one, bound by this send. */
      bound: z.boolean(),
    })
    .optional(),
  connectionProblem: z.string().optional(),
  /** What confirming gives back to `sending.start`; absent when nothing can be confirmed (no usable connection). */
  reviewed: reviewedSendSchema.optional(),
  /**
   * The documents that stay behind and why, in the person's language: those not ready (their
   * problems), those that failed (retried from their row) and those that need the person's check.
   */
  blocked: z.array(
    z.object({ id: z.string(), externalReference: z.string(), problems: z.array(z.string()) }),
  ),
});
export type SendReview = z.infer<typeof sendReviewSchema>;

/**
 * The bytes of a document's stored copy (the app's own, never a path the page names), base64
 * encoded so that they cross both hosts' bridges (Electron's structured clone and the browser
 * host's JSON) alike; with the name the service will store it under.
 */
export const documentContentSchema = z.object({
  storedFilename: z.string(),
  sha256: z.string(),
  base64: z.string(),
});
export type DocumentContent = z.infer<typeof documentContentSchema>;
