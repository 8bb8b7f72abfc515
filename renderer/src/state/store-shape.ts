/**
 * The shape of the renderer's one store: the state mirrored from main (transitions.ts), the waits
 * the desk shows, and the actions, one area per capability. An action is named as the channel it
 * calls (`actions.manifest.preview` calls `desk().manifest.preview`, channel 'manifest.preview'),
 * so a capability's name leads from the button to main's handler; the few actions of the page's
 * own (`page.*`, `app.connect`, …) call no channel of that name.
 */
import type { Translator } from '../../../shared/i18n/translator';
import type { AppActions } from './app';
import type { BatchesActions } from './batches';
import type { CeremonyActions } from './ceremony';
import type { DialogsActions } from './dialogs';
import type { DocumentsActions } from './documents';
import type { ManifestActions } from './manifest';
import type { PageActions } from './page';
import type { ProfilesActions } from './profiles';
import type { ReportActions } from './report';
import type { SendingActions } from './sending';
import type { TrackingActions } from './tracking';
import type { DeskState } from './transitions';

/** A ceremony being opened, or one that could not open and why (shown with "Try again"). */
export interface CeremonyAttempt {
  readonly batchId: string;
  readonly documentId: string;
  readonly reference: string;
  readonly state: 'opening' | 'failed';
  readonly message?: string;
}

/** The waits the desk shows within a second, each with a way out (README "Using the app", Send batch). */
export interface WaitsState {
  /** The system keychain keeps a call waiting: its own prompt may have opened. */
  readonly keychainWaiting: boolean;
  readonly ceremonyAttempt: CeremonyAttempt | undefined;
}

/** The actions screens call, by capability: each area is the channels' own (`sending.*`, …). */
export interface DeskActions {
  readonly app: AppActions;
  readonly page: PageActions;
  readonly profiles: ProfilesActions;
  readonly batches: BatchesActions;
  readonly dialogs: DialogsActions;
  readonly documents: DocumentsActions;
  readonly manifest: ManifestActions;
  readonly sending: SendingActions;
  readonly ceremony: CeremonyActions;
  readonly tracking: TrackingActions;
  readonly report: ReportActions;
}

export type DeskStore = DeskState & WaitsState & { readonly actions: DeskActions };

/** What an area's actions reach of the store they are part of. */
export interface StoreKit {
  /** Applies a transition (transitions.ts) to the state mirrored from main. */
  readonly set: (transition: (state: DeskState) => DeskState) => void;
  readonly setWaits: (waits: Partial<WaitsState>) => void;
  /** The store as it is now: its state, and every area's actions (one area calls another through them). */
  readonly get: () => DeskStore;
  /** The current language's words, read at the time of the message. */
  readonly t: Translator['t'];
}
