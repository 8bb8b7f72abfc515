/**
 * What the desk service needs from its host (Electron or the browser host), as small
 * interfaces: the host supplies dialogs, the ceremony window, notifications and profiles.
 */
import type { ProfileInput } from '../../shared/ipc/contract';
import type { WidgetSessionHandle } from '../client/service-client';
import type { ServiceResult } from '../domain/service-failure';
import type { KeychainWaits } from '../credentials/keychain-watch';
import type { Connection } from '../credentials/connection';
import type { ProfileRecord } from '../credentials/profile-store';

/** Connection profiles; secrets live in the keychain behind it. Failures throw DeskError. */
export interface ProfileRegistry {
  list(): Promise<ProfileRecord[]>;
  save(input: ProfileInput): Promise<ProfileRecord>;
  delete(name: string): Promise<void>;
  activeName(): Promise<string | undefined>;
  setActive(name: string): Promise<void>;
  connectionFor(name: string): Promise<Connection>;
  /** Says when the keychain keeps a call waiting (its own prompt may have opened). */
  readonly keychainWaits?: KeychainWaits;
}

/** Native file dialogs (Electron) or their stand-in (browser host). `undefined`/[] = cancelled. */
export interface Dialogs {
  pickPdfs(): Promise<string[]>;
  pickFolder(): Promise<string | undefined>;
  pickManifest(): Promise<string | undefined>;
  pickReportPath(defaultName: string): Promise<string | undefined>;
}

/** A ceremony to show: the widget URL is a secret that only the opener ever reveals. */
export interface CeremonyRequest {
  readonly key: string;
  readonly title: string;
  readonly session: WidgetSessionHandle;
  /** A fresh session, for when the current URL has expired: an expired URL is never loaded. */
  renew(): Promise<ServiceResult<WidgetSessionHandle>>;
  /** Called once when the window is closed. */
  onClosed(): void;
}

/** Opens ceremonies in a locked-down window of their own. */
export interface CeremonyOpener {
  open(request: CeremonyRequest): Promise<void>;
  /** Brings the open ceremony window of `key` to the front; false when none is open (or the host cannot tell). */
  focus?(key: string): boolean;
}

export interface Notifier {
  notify(title: string, body: string): void;
}

/** The built-in simulator as a demo connection (development hosts only). */
export interface DemoProvider {
  start(): Promise<{ readonly baseUrl: string; readonly clientId: string; readonly clientSecret: string }>;
  /** Starts the demo again when it was used before in this data folder (its batches are tracked); undefined otherwise. */
  resume?(): Promise<
    { readonly baseUrl: string; readonly clientId: string; readonly clientSecret: string } | undefined
  >;
}
