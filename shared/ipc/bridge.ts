/**
 * The API the renderer uses, as named functions grouped by capability. The same factory
 * builds it in the Electron preload (over ipcRenderer) and in the browser host's bridge (over a
 * WebSocket), so both hosts expose the very same API. Nothing here gives a generic invoke.
 */
import type {
  ChannelArgs,
  ChannelResult,
  EventChannel,
  EventPayload,
  InvokeChannel,
  IpcResult,
} from './contract';

export const BRIDGE_METHODS = {
  app: { info: 'app.info', setLanguage: 'app.setLanguage' },
  profiles: {
    list: 'profiles.list',
    save: 'profiles.save',
    dependents: 'profiles.dependents',
    delete: 'profiles.delete',
    activate: 'profiles.activate',
    test: 'profiles.test',
    useDemo: 'profiles.useDemo',
  },
  batches: {
    list: 'batches.list',
    get: 'batches.get',
    create: 'batches.create',
    rename: 'batches.rename',
    setDefaults: 'batches.setDefaults',
    delete: 'batches.delete',
  },
  dialogs: {
    pickPdfs: 'dialogs.pickPdfs',
    pickFolder: 'dialogs.pickFolder',
    pickManifest: 'dialogs.pickManifest',
  },
  documents: {
    addPaths: 'documents.addPaths',
    update: 'documents.update',
    remove: 'documents.remove',
    content: 'documents.content',
  },
  manifest: { preview: 'manifest.preview', import: 'manifest.import' },
  sending: {
    review: 'sending.review',
    start: 'sending.start',
    resume: 'sending.resume',
    pause: 'sending.pause',
    retry: 'sending.retry',
    tryNow: 'sending.tryNow',
    linkRequest: 'sending.linkRequest',
    sendAsNew: 'sending.sendAsNew',
  },
  ceremony: { open: 'ceremony.open' },
  tracking: {
    refreshNow: 'tracking.refreshNow',
    checkAgain: 'tracking.checkAgain',
    setPaused: 'tracking.setPaused',
  },
  report: { csv: 'report.csv', export: 'report.export' },
} as const satisfies Record<string, Record<string, InvokeChannel>>;

export const BRIDGE_EVENTS = {
  batch: { changed: 'batch.changed', deleted: 'batch.deleted' },
  sending: { progress: 'sending.progress', state: 'sending.state' },
  tracking: {
    status: 'tracking.status',
    completed: 'tracking.completed',
    paused: 'tracking.paused',
    checked: 'tracking.checked',
  },
  ceremony: { closed: 'ceremony.closed' },
  profiles: { changed: 'profiles.changed' },
  keychain: { waiting: 'keychain.waiting' },
} as const satisfies Record<string, Record<string, EventChannel>>;

type Methods = typeof BRIDGE_METHODS;

/**
 * One name end to end: each method is called as its channel is named (`profiles.delete` is
 * `desk.profiles.delete`, handled by the `'profiles.delete'` handler). A method named otherwise
 * fails to compile here.
 */
type NamedAsItsChannel<T> = {
  readonly [Group in keyof T & string]: { readonly [Name in keyof T[Group] & string]: `${Group}.${Name}` };
};
const namedAsItsChannel: NamedAsItsChannel<Methods> = BRIDGE_METHODS;
void namedAsItsChannel;
/** The same for events: `desk.events.sending.progress` listens to `'sending.progress'`. */
const eventNamedAsItsChannel: NamedAsItsChannel<typeof BRIDGE_EVENTS> = BRIDGE_EVENTS;
void eventNamedAsItsChannel;
type Events = typeof BRIDGE_EVENTS;

/** Every channel of the contract, and every event, is in the bridge: one left out fails to compile here. */
type Listed<T> = { [Group in keyof T]: T[Group][keyof T[Group]] }[keyof T];
type EveryOne<Missing> = [Missing] extends [never] ? true : { readonly missingFromTheBridge: Missing };
const everyChannel: EveryOne<Exclude<InvokeChannel, Listed<Methods>>> = true;
const everyEvent: EveryOne<Exclude<EventChannel, Listed<Events>>> = true;
void everyChannel;
void everyEvent;

export type DeskBridge = {
  readonly [Group in keyof Methods]: {
    readonly [Name in keyof Methods[Group]]: Methods[Group][Name] extends InvokeChannel
      ? (
          ...args: ChannelArgs<Methods[Group][Name]>
        ) => Promise<IpcResult<ChannelResult<Methods[Group][Name]>>>
      : never;
  };
} & {
  readonly events: {
    readonly [Group in keyof Events]: {
      readonly [Name in keyof Events[Group]]: Events[Group][Name] extends EventChannel
        ? (listener: (payload: EventPayload<Events[Group][Name]>) => void) => () => void
        : never;
    };
  };
};

/**
 * What the page sees as `window.desk`: the named API, plus which host serves it. The Electron
 * preload, the browser host's page bridge and the renderer all use this one type.
 */
export type HostBridge = DeskBridge & {
  readonly host: 'electron' | 'browser';
  /** The file's path on disk for a dropped file (Electron), or undefined (browser host). */
  readonly pathForFile: (file: File) => string | undefined;
  /**
   * Browser host only (Electron's main process cannot go away under its window): `listener`
   * hears when the page lost its backend, and when it is back and caught up (see ConnectionChange).
   */
  readonly onConnectionChange?: (listener: (change: ConnectionChange) => void) => () => void;
};

/**
 * The browser host's connection: lost, or back. When back, the events missed meanwhile have
 * been delivered already, unless `resync`: some could not be (or a call failed for want of the
 * host), and the page must read its state anew before it shows it as current.
 */
export type ConnectionChange =
  { readonly connected: false } | { readonly connected: true; readonly resync: boolean };

export type Invoke = (channel: InvokeChannel, args: readonly unknown[]) => Promise<IpcResult<unknown>>;
export type Subscribe = (event: EventChannel, listener: (payload: unknown) => void) => () => void;

/** Builds the named API over a transport. Each function forwards exactly one channel. */
export function createBridge(invoke: Invoke, subscribe: Subscribe): DeskBridge {
  const groups = Object.fromEntries(
    Object.entries(BRIDGE_METHODS).map(([group, methods]) => [
      group,
      Object.freeze(
        Object.fromEntries(
          Object.entries(methods).map(([method, channel]) => [
            method,
            (...args: unknown[]) => invoke(channel, args),
          ]),
        ),
      ),
    ]),
  );
  const events = Object.freeze(
    Object.fromEntries(
      Object.entries(BRIDGE_EVENTS).map(([group, names]) => [
        group,
        Object.freeze(
          Object.fromEntries(
            Object.entries(names).map(([name, event]) => [
              name,
              (listener: (payload: unknown) => void) => subscribe(event, listener),
            ]),
          ),
        ),
      ]),
    ),
  );
  return Object.freeze({ ...groups, events }) as unknown as DeskBridge;
}
