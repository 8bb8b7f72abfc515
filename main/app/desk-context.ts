import type { EngineStateView } from '../../shared/ipc/views';
import type { Translator } from '../../shared/i18n/translator';
import type { BatchState } from '../domain/batch-state';
import type { BatchOutline } from '../domain/batch-outline';
import type { Connected } from './desk-core';
import type { Logger } from '../base/log';
import type { BatchStore } from '../store/batch-store';
import type { BlobStore } from '../store/blob-store';
import type { ConnectionSessions } from './connection-sessions';
import type { DeskServiceDeps } from './desk-service';
import type { HeldBack } from './batch-views';
import type { DeskProfiles } from './desk-profiles';
import type { SettingsFile } from './desk-settings';

/**
 * What every capability's handlers share (`main/app/handlers/`): the data folder, the profiles
 * and open connections, the send state of each batch, and the few rules they all apply. Built
 * once by `createDeskService`.
 */
export interface DeskContext {
  readonly deps: DeskServiceDeps;
  readonly store: BatchStore;
  readonly blobs: BlobStore;
  readonly logger: Logger;
  /** The profiles: the saved ones and the demo; which one is active. */
  readonly profiles: DeskProfiles;
  /** The open connections, one per service and client id, each with its engine and poller. */
  readonly sessions: ConnectionSessions;
  /** The send engine's last state of each batch, as the page shows it. */
  readonly engineStates: Map<string, EngineStateView>;
  engineState(batchId: string): EngineStateView;
  /** The whole batch (read back from its snapshot if it is at rest), or a DeskError the page shows. */
  openBatch(batchId: string): Promise<BatchState>;
  /** The batch's outline, read from nothing (a batch at rest too), or a DeskError the page shows. */
  outlineOrThrow(batchId: string): BatchOutline;
  /** Tells the page a batch changed (its summary, with its connection problem if any). */
  announce(batchId: string): void;
  /** Tells the page the connections changed. */
  announceProfiles(): Promise<void>;
  /** The connection a batch is sent and tracked with; `bind` (sending only) binds a batch not sent yet to the active one. */
  connectionForBatch(batchId: string, options?: { readonly bind?: boolean }): Promise<Connected>;
  /** After a connection changed: every batch tracked again with its own, interrupted sends resumed. */
  connectionsChanged(interrupted: readonly string[]): Promise<void>;
  /**
   * Sends on every batch left half sent whose own connection can be used now (and the
   * `interrupted` ones), each with its own connection; batches already running are left as they are.
   */
  resumeUnfinished(interrupted?: readonly string[]): Promise<void>;
  /**
   * Sends a batch in the background with `current`: what it has queued goes on, and `reviewed`
   * (documents the person reviewed and confirmed) is queued too; no other document is ever
   * queued here. A crash is reported, never thrown.
   */
  runSend(batchId: string, current: Connected, reviewed?: readonly string[]): void;
  trackingPaused(): boolean;
  setTrackingPaused(paused: boolean): void;
  /**
   * For a batch's drafts: which document of another batch holds each one's reference at the
   * service the batch goes to (its own connection, else the active one), so the review and the
   * table hold it back and say so.
   */
  heldBackOf(batch: BatchState): Promise<HeldBack>;
  /** The person's settings (language, tracking paused), kept in the data folder. */
  readonly settings: SettingsFile;
  /** The language main speaks now (the setting, or the OS's): messages, the report. */
  translator(): Translator;
}
