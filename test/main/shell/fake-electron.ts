/**
 * A fake `electron` module for unit tests of the shell and the preload, in the spirit of
 * Electron Fiddle's tests/mocks: it records what the code under test asks of Electron (window
 * options, handlers on webContents, sessions, app and ipcMain, tray menus, notifications) and
 * lets a test play Electron's part (emit events, call handlers, click menu items).
 *
 * Use it with `vi.mock('electron', () => import('./fake-electron'))` and call `resetFakeElectron()`
 * before each test. Only the parts of Electron the shell uses exist here.
 */
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

/** Electron's Event: `preventDefault()` and `defaultPrevented`, plus any params (url…). */
export interface FakeEvent {
  defaultPrevented: boolean;
  preventDefault(): void;
}

/** An Event carrying `params`, as Electron passes to will-navigate and friends. */
export function fakeEvent<P extends object>(params: P = {} as P): P & FakeEvent {
  const event = {
    ...params,
    defaultPrevented: false,
    preventDefault() {
      event.defaultPrevented = true;
    },
  };
  return event;
}

type PermissionRequestHandler = (
  contents: unknown,
  permission: string,
  callback: (granted: boolean) => void,
  details: { requestingUrl: string; isMainFrame: boolean },
) => void;
type PermissionCheckHandler = (
  contents: unknown,
  permission: string,
  requestingOrigin: string,
  details: object,
) => boolean;

export class FakeSession extends EventEmitter {
  static partitions = new Map<string, FakeSession>();
  static fromPartitionCalls: { partition: string; options: unknown }[] = [];
  static #default: FakeSession | undefined;

  readonly partition: string;
  permissionRequestHandler: PermissionRequestHandler | null = null;
  permissionCheckHandler: PermissionCheckHandler | null = null;
  devicePermissionHandler: ((details: object) => boolean) | null = null;
  readonly clearStorageData = vi.fn(async () => undefined);
  readonly clearCache = vi.fn(async () => undefined);

  constructor(partition: string) {
    super();
    this.partition = partition;
  }

  static get defaultSession(): FakeSession {
    FakeSession.#default ??= new FakeSession('');
    return FakeSession.#default;
  }

  static fromPartition(partition: string, options?: unknown): FakeSession {
    FakeSession.fromPartitionCalls.push({ partition, options });
    return FakeSession.forPartition(partition);
  }

  /** The session of `partition`, as a window created with it gets (not recorded as a call). */
  static forPartition(partition: string): FakeSession {
    const existing = FakeSession.partitions.get(partition);
    if (existing) return existing;
    const created = new FakeSession(partition);
    FakeSession.partitions.set(partition, created);
    return created;
  }

  static reset(): void {
    FakeSession.partitions = new Map();
    FakeSession.fromPartitionCalls = [];
    FakeSession.#default = undefined;
  }

  setPermissionRequestHandler(handler: PermissionRequestHandler | null): void {
    this.permissionRequestHandler = handler;
  }

  setPermissionCheckHandler(handler: PermissionCheckHandler | null): void {
    this.permissionCheckHandler = handler;
  }

  setDevicePermissionHandler(handler: ((details: object) => boolean) | null): void {
    this.devicePermissionHandler = handler;
  }

  /** Plays a page asking for `permission`; resolves with what the handler granted. */
  requestPermission(permission: string, requestingUrl: string): Promise<boolean> {
    const handler = this.permissionRequestHandler;
    if (!handler) return Promise.resolve(true); // Electron's default is to grant.
    return new Promise((resolve) => handler(null, permission, resolve, { requestingUrl, isMainFrame: true }));
  }

  /** Plays Chromium checking `permission` for `origin`. */
  checkPermission(permission: string, origin: string): boolean {
    return this.permissionCheckHandler ? this.permissionCheckHandler(null, permission, origin, {}) : true;
  }
}

let nextFrameId = 1;

export class FakeWebFrame {
  url: string;
  readonly processId: number;
  readonly routingId: number;
  readonly parent: FakeWebFrame | null;

  constructor(url: string, parent: FakeWebFrame | null = null) {
    this.url = url;
    this.processId = 4;
    this.routingId = nextFrameId++;
    this.parent = parent;
  }
}

let nextContentsId = 1;

export class FakeWebContents extends EventEmitter {
  /** Makes the next loadURL of any webContents reject with this error (as a failed load does). */
  static failNextLoad: Error | undefined;

  readonly id = nextContentsId++;
  readonly session: FakeSession;
  readonly mainFrame = new FakeWebFrame('');
  windowOpenHandler: ((details: { url: string }) => { action: string }) | undefined;
  readonly sent: unknown[][] = [];
  destroyed = false;
  readonly loadURL = vi.fn(async (url: string) => {
    const failure = FakeWebContents.failNextLoad;
    FakeWebContents.failNextLoad = undefined;
    if (failure) throw failure;
    this.mainFrame.url = url;
  });

  constructor(session: FakeSession) {
    super();
    this.session = session;
  }

  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }

  getURL(): string {
    return this.mainFrame.url;
  }

  send(channel: string, ...args: unknown[]): void {
    this.sent.push([channel, ...args]);
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  /** Plays the page calling window.open(url); returns the handler's answer. */
  openWindow(url: string): { action: string } {
    if (!this.windowOpenHandler) return { action: 'allow' };
    return this.windowOpenHandler({ url });
  }

  /** Emits a navigation event (will-navigate, will-frame-navigate, will-redirect); true if prevented. */
  navigate(kind: 'will-navigate' | 'will-frame-navigate' | 'will-redirect', url: string): boolean {
    const event = fakeEvent({ url, isMainFrame: true, isSameDocument: false, frame: this.mainFrame });
    this.emit(kind, event);
    return event.defaultPrevented;
  }
}

export class FakeBrowserWindow extends EventEmitter {
  static windows: FakeBrowserWindow[] = [];

  readonly options: Record<string, unknown> & { webPreferences?: Record<string, unknown> };
  readonly webContents: FakeWebContents;
  title: string;
  visible = false;
  minimized = false;
  destroyed = false;
  readonly show = vi.fn(() => {
    this.visible = true;
  });
  readonly hide = vi.fn(() => {
    this.visible = false;
  });
  readonly focus = vi.fn();
  readonly restore = vi.fn(() => {
    this.minimized = false;
  });
  readonly setTitle = vi.fn((title: string) => {
    this.title = title;
  });
  /** The window's own menu: undefined = the application menu (Electron's default), null = none. */
  menu: FakeMenu | null | undefined = undefined;
  readonly removeMenu = vi.fn(() => {
    this.menu = null;
  });
  readonly setMenu = vi.fn((menu: FakeMenu | null) => {
    this.menu = menu;
  });

  constructor(options: Record<string, unknown> = {}) {
    super();
    this.options = options;
    this.title = typeof options.title === 'string' ? options.title : '';
    const partition = (options.webPreferences as { partition?: string } | undefined)?.partition;
    this.webContents = new FakeWebContents(
      partition ? FakeSession.forPartition(partition) : FakeSession.defaultSession,
    );
    FakeBrowserWindow.windows.push(this);
    app.emit('web-contents-created', fakeEvent(), this.webContents);
  }

  static reset(): void {
    FakeBrowserWindow.windows = [];
  }

  loadURL(url: string): Promise<void> {
    return this.webContents.loadURL(url);
  }

  isVisible(): boolean {
    return this.visible;
  }

  isMinimized(): boolean {
    return this.minimized;
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  /** Plays the user closing the window: 'close' (preventable), then 'closed'. */
  close(): void {
    const event = fakeEvent();
    this.emit('close', event);
    if (!event.defaultPrevented) this.destroy();
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.visible = false;
    this.webContents.destroyed = true;
    this.emit('closed');
  }
}

class FakeApp extends EventEmitter {
  hasLock = true;
  paths: Record<string, string> = {};
  appPath = process.cwd();
  isPackaged = false;
  /** The switches the process was "started" with, without their leading dashes. */
  switches = new Set<string>();
  readonly commandLine = { hasSwitch: vi.fn((name: string) => this.switches.has(name)) };
  loginItem = { openAtLogin: false, wasOpenedAtLogin: false };
  readonly requestSingleInstanceLock = vi.fn(() => this.hasLock);
  readonly quit = vi.fn();
  readonly exit = vi.fn();
  readonly setAppUserModelId = vi.fn();
  readonly setLoginItemSettings = vi.fn((settings: { openAtLogin?: boolean }) => {
    this.loginItem.openAtLogin = settings.openAtLogin ?? false;
  });

  whenReady(): Promise<void> {
    return Promise.resolve();
  }

  readonly setPath = vi.fn((name: string, path: string) => {
    this.paths[name] = path;
  });

  getPath(name: string): string {
    const path = this.paths[name];
    if (!path) throw new Error(`fake app: no path configured for "${name}"`);
    return path;
  }

  getAppPath(): string {
    return this.appPath;
  }

  getVersion(): string {
    return '0.1.0-test';
  }

  /** As Electron: the OS's preferred languages, most preferred first. */
  getPreferredSystemLanguages(): string[] {
    return ['en-US'];
  }

  getName(): string {
    return 'Signing Batch Desk';
  }

  getLoginItemSettings(): { openAtLogin: boolean; wasOpenedAtLogin: boolean } {
    return { ...this.loginItem };
  }

  reset(): void {
    this.removeAllListeners();
    this.hasLock = true;
    this.paths = {};
    this.appPath = process.cwd();
    this.isPackaged = false;
    this.switches = new Set();
    this.commandLine.hasSwitch.mockClear();
    this.loginItem = { openAtLogin: false, wasOpenedAtLogin: false };
    this.requestSingleInstanceLock.mockClear();
    this.setPath.mockClear();
    this.quit.mockClear();
    this.exit.mockClear();
    this.setAppUserModelId.mockClear();
    this.setLoginItemSettings.mockClear();
  }
}

export const app = new FakeApp();

type InvokeHandler = (event: unknown, ...args: unknown[]) => unknown;

class FakeIpcMain {
  handlers = new Map<string, InvokeHandler>();

  handle(channel: string, handler: InvokeHandler): void {
    if (this.handlers.has(channel))
      throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
  }

  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }

  /** Plays a renderer calling ipcRenderer.invoke(channel, ...args) from `sender`/`senderFrame`. */
  async invoke(
    channel: string,
    from: { sender: FakeWebContents; senderFrame: FakeWebFrame | null },
    ...args: unknown[]
  ): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return handler(
      { ...from, processId: from.senderFrame?.processId, frameId: from.senderFrame?.routingId },
      ...args,
    );
  }

  reset(): void {
    this.handlers = new Map();
  }
}

export const ipcMain = new FakeIpcMain();

export const protocol = {
  privileged: [] as unknown[],
  handlers: new Map<string, (request: Request) => Promise<Response> | Response>(),
  registerSchemesAsPrivileged(schemes: unknown[]) {
    protocol.privileged.push(...schemes);
  },
  handle(scheme: string, handler: (request: Request) => Promise<Response> | Response) {
    protocol.handlers.set(scheme, handler);
  },
};

export const session = {
  fromPartition: (partition: string, options?: unknown) => FakeSession.fromPartition(partition, options),
  get defaultSession() {
    return FakeSession.defaultSession;
  },
};

export const shell = { openExternal: vi.fn(async (_url: string) => undefined) };

export interface FakeMenuItem {
  id?: string;
  label?: string;
  role?: string;
  submenu?: FakeMenuItem[];
  type?: string;
  checked?: boolean;
  enabled?: boolean;
  click?: (item: { checked: boolean }) => void;
}

export class FakeMenu {
  readonly items: FakeMenuItem[];

  constructor(items: FakeMenuItem[]) {
    this.items = items;
  }

  /** Plays a click on the item `id`; a checkbox flips first, as Electron does. */
  click(id: string): void {
    const item = this.items.find((candidate) => candidate.id === id);
    if (!item?.click) throw new Error(`no clickable menu item "${id}"`);
    const checked = item.type === 'checkbox' ? !item.checked : Boolean(item.checked);
    item.click({ checked });
  }
}

export const Menu = {
  /** What Menu.setApplicationMenu was last given; null as in an app that never set one. */
  application: null as FakeMenu | null,
  buildFromTemplate: (template: FakeMenuItem[]) => new FakeMenu(template),
  setApplicationMenu: vi.fn((menu: FakeMenu | null) => {
    Menu.application = menu;
  }),
  getApplicationMenu: () => Menu.application,
};

export class FakeTray extends EventEmitter {
  static trays: FakeTray[] = [];
  readonly image: unknown;
  tooltip = '';
  title = '';
  contextMenu: FakeMenu | undefined;
  destroyed = false;

  constructor(image: unknown) {
    super();
    this.image = image;
    FakeTray.trays.push(this);
  }

  setToolTip(tooltip: string): void {
    this.tooltip = tooltip;
  }

  setTitle(title: string): void {
    this.title = title;
  }

  setContextMenu(menu: FakeMenu): void {
    this.contextMenu = menu;
  }

  destroy(): void {
    this.destroyed = true;
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }
}

export class FakeNotification extends EventEmitter {
  static supported = true;
  static shown: FakeNotification[] = [];
  readonly options: { title: string; body: string };

  constructor(options: { title: string; body: string }) {
    super();
    this.options = options;
  }

  static isSupported(): boolean {
    return FakeNotification.supported;
  }

  show(): void {
    FakeNotification.shown.push(this);
  }
}

export const dialog = {
  showOpenDialog: vi.fn(async (..._args: unknown[]) => ({ canceled: true, filePaths: [] as string[] })),
  showSaveDialog: vi.fn(async (..._args: unknown[]) => ({ canceled: true, filePath: '' })),
  showErrorBox: vi.fn(),
};

type RendererListener = (event: unknown, ...args: unknown[]) => void;

class FakeIpcRenderer extends EventEmitter {
  readonly invoke = vi.fn(async (..._args: unknown[]): Promise<unknown> => ({ ok: true, value: null }));

  /** Plays main sending `args` on `channel`, with the IPC event object Electron passes first. */
  deliver(channel: string, ...args: unknown[]): void {
    const event = { sender: this, senderId: 0, ports: [] };
    for (const listener of this.listeners(channel) as RendererListener[]) listener(event, ...args);
  }
}

export const ipcRenderer = new FakeIpcRenderer();

export const contextBridge = {
  exposed: new Map<string, unknown>(),
  exposeInMainWorld(key: string, api: unknown) {
    contextBridge.exposed.set(key, api);
  },
};

export const webUtils = { getPathForFile: vi.fn((_file: unknown) => '') };

export { FakeBrowserWindow as BrowserWindow, FakeNotification as Notification, FakeTray as Tray };

/** Back to a fresh Electron: no windows, handlers, sessions, trays or recorded calls. */
export function resetFakeElectron(): void {
  app.reset();
  ipcMain.reset();
  FakeBrowserWindow.reset();
  FakeSession.reset();
  FakeWebContents.failNextLoad = undefined;
  FakeTray.trays = [];
  Menu.application = null;
  Menu.setApplicationMenu.mockClear();
  FakeNotification.supported = true;
  FakeNotification.shown = [];
  protocol.privileged.length = 0;
  protocol.handlers.clear();
  shell.openExternal.mockClear();
  dialog.showOpenDialog.mockClear();
  dialog.showSaveDialog.mockClear();
  dialog.showErrorBox.mockClear();
}

/** A fake seen through Electron's types, for calling the code under test. */
export function asElectron<T>(fake: unknown): T {
  return fake as T;
}
