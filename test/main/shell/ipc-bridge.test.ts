import type { WebContents } from 'electron';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  invokeChannels,
  type ChannelArgs,
  type DeskHandlers,
  type InvokeChannel,
  type IpcResult,
} from '../../../shared/ipc/contract';
import { DESK_EVENT_CHANNEL, DESK_INVOKE_CHANNEL } from '../../../shared/ipc/channels';
import { DeskError } from '../../../main/app/desk-error';
import { registerDeskIpc, type DeskIpc } from '../../../main/shell/ipc-bridge';
import {
  FakeBrowserWindow,
  FakeWebFrame,
  ipcMain,
  resetFakeElectron,
  type FakeWebContents,
} from './fake-electron';
import { captureLogger } from './log-capture';

vi.mock('electron', () => import('./fake-electron'));

type HandlerMocks = { [C in InvokeChannel]: ReturnType<typeof vi.fn> };

/** A valid call of every channel; adding a channel to the contract makes this fail to compile. */
const VALID_ARGS: { [C in InvokeChannel]: ChannelArgs<C> } = {
  'app.info': [],
  'app.setLanguage': ['fr'],
  'profiles.list': [],
  'profiles.save': [
    { name: 'Sandbox', baseUrl: 'https://sign.example.com', clientId: 'client-1', secret: 's3cret' },
  ],
  'profiles.dependents': ['Sandbox'],
  'profiles.delete': ['Sandbox', { dependents: 3 }],
  'profiles.activate': ['Sandbox'],
  'profiles.test': ['Sandbox'],
  'profiles.useDemo': [],
  'batches.list': [],
  'batches.get': ['batch-1'],
  'batches.create': ['Monday contracts'],
  'batches.rename': ['batch-1', 'Tuesday contracts'],
  'batches.setDefaults': ['batch-1', { defaultRecipients: [], locale: 'fr-FR' }],
  'batches.delete': ['batch-1'],
  'dialogs.pickPdfs': [],
  'dialogs.pickFolder': [],
  'dialogs.pickManifest': [],
  'documents.addPaths': ['batch-1', ['/home/ana/contracts/a.pdf'], '/home/ana/contracts'],
  'documents.update': ['batch-1', 'doc-1', { externalReference: 'REF-001' }],
  'documents.remove': ['batch-1', 'doc-1'],
  'documents.content': ['batch-1', 'doc-1'],
  'manifest.preview': ['/home/ana/manifest.csv'],
  'manifest.import': ['batch-1', '/home/ana/manifest.csv'],
  'sending.review': ['batch-1'],
  'sending.start': [
    'batch-1',
    {
      documentIds: ['doc-1'],
      digest: 'f'.repeat(64),
      connection: { baseUrl: 'https://sign.example.com', clientId: 'client-1' },
    },
  ],
  'sending.resume': ['batch-1'],
  'sending.pause': ['batch-1'],
  'sending.retry': ['batch-1', 'doc-1'],
  'sending.tryNow': ['batch-1'],
  'sending.linkRequest': ['batch-1', 'doc-1', 'sr_1'],
  'sending.sendAsNew': ['batch-1', 'doc-1'],
  'ceremony.open': ['batch-1', 'doc-1'],
  'tracking.refreshNow': ['batch-1'],
  'tracking.checkAgain': ['batch-1', 'doc-1'],
  'tracking.setPaused': [true],
  'report.csv': ['batch-1'],
  'report.export': ['batch-1'],
};

const CHANNELS = Object.keys(invokeChannels) as InvokeChannel[];
const OVERLONG = 'x'.repeat(100_001);

interface BadPayload {
  readonly channel: InvokeChannel;
  readonly label: string;
  readonly args: unknown;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function replaced(args: readonly unknown[], index: number, value: unknown): unknown[] {
  return args.map((arg, position) => (position === index ? value : arg));
}

/** Bad payloads for every channel, generated from the contract and the valid calls above. */
function badPayloads(): BadPayload[] {
  const table: BadPayload[] = [];
  for (const channel of CHANNELS) {
    const valid = VALID_ARGS[channel] as readonly unknown[];
    const items = invokeChannels[channel].args.def.items as readonly {
      safeParse(value: unknown): { success: boolean };
    }[];
    table.push({ channel, label: 'arguments that are not a list', args: 'batch-1' });
    table.push({ channel, label: 'null arguments', args: null });
    table.push({ channel, label: 'an array-like object', args: { 0: valid[0], length: valid.length } });
    table.push({ channel, label: 'one argument too many', args: [...valid, 'extra'] });
    const required = items.filter((item) => !item.safeParse(undefined).success).length;
    if (required > 0)
      table.push({ channel, label: 'one argument too few', args: valid.slice(0, required - 1) });
    valid.forEach((arg, index) => {
      const where = `argument ${index + 1}`;
      table.push({ channel, label: `a number as ${where}`, args: replaced(valid, index, 42) });
      table.push({
        channel,
        label: `an over-long string as ${where}`,
        args: replaced(valid, index, OVERLONG),
      });
      table.push({ channel, label: `null as ${where}`, args: replaced(valid, index, null) });
      if (!isPlainObject(arg)) {
        table.push({
          channel,
          label: `an object as ${where}`,
          args: replaced(valid, index, { junk: true, toString: 'x' }),
        });
      }
      if (typeof arg === 'string') {
        table.push({ channel, label: `an empty string as ${where}`, args: replaced(valid, index, '') });
      }
      if (Array.isArray(arg)) {
        table.push({
          channel,
          label: `a list with a number as ${where}`,
          args: replaced(valid, index, [42]),
        });
        table.push({
          channel,
          label: `a list with an over-long string as ${where}`,
          args: replaced(valid, index, [OVERLONG]),
        });
        table.push({ channel, label: `an empty list as ${where}`, args: replaced(valid, index, []) });
      }
      if (isPlainObject(arg)) {
        for (const [key, value] of Object.entries(arg)) {
          const bad = typeof value === 'string' ? 42 : OVERLONG;
          table.push({
            channel,
            label: `a wrong ${key} in ${where}`,
            args: replaced(valid, index, { ...arg, [key]: bad }),
          });
        }
      }
    });
  }
  return table;
}

let main: FakeBrowserWindow;
let handlers: HandlerMocks;
let ipc: DeskIpc;
let log: ReturnType<typeof captureLogger>;

beforeEach(() => {
  resetFakeElectron();
  log = captureLogger();
  main = new FakeBrowserWindow({});
  main.webContents.mainFrame.url = 'app://desk/index.html';
  handlers = Object.fromEntries(
    CHANNELS.map((channel) => [channel, vi.fn(async () => `${channel} done`)]),
  ) as HandlerMocks;
  ipc = registerDeskIpc({
    handlers: handlers as unknown as DeskHandlers,
    logger: log.logger,
    mainWebContents: () => main.webContents as unknown as WebContents,
  });
});

const fromMain = () => ({ sender: main.webContents, senderFrame: main.webContents.mainFrame });

function call(
  from: { sender: FakeWebContents; senderFrame: FakeWebFrame | null },
  channel: unknown,
  args?: unknown,
) {
  return ipcMain.invoke(DESK_INVOKE_CHANNEL, from, channel, args) as Promise<IpcResult<unknown>>;
}

const noHandlerCalled = () => CHANNELS.every((channel) => handlers[channel].mock.calls.length === 0);

describe('the IPC bridge', () => {
  it('registers exactly one invoke channel', () => {
    expect([...ipcMain.handlers.keys()]).toEqual([DESK_INVOKE_CHANNEL]);
  });

  it('passes a valid call from the main window to its handler', async () => {
    expect(await call(fromMain(), 'batches.rename', ['batch-1', '  Tuesday  '])).toEqual({
      ok: true,
      value: 'batches.rename done',
    });
    expect(handlers['batches.rename']).toHaveBeenCalledExactlyOnceWith('batch-1', 'Tuesday');
  });

  it.each(CHANNELS)('accepts the valid call of %s', async (channel) => {
    const result = await call(fromMain(), channel, VALID_ARGS[channel]);
    expect(result).toEqual({ ok: true, value: `${channel} done` });
    expect(handlers[channel]).toHaveBeenCalledOnce();
  });

  describe('refuses foreign senders without running anything', () => {
    const foreign: [string, () => { sender: FakeWebContents; senderFrame: FakeWebFrame | null }][] = [
      [
        'a ceremony window',
        () => {
          const ceremony = new FakeBrowserWindow({ webPreferences: { partition: 'ceremony-1' } });
          ceremony.webContents.mainFrame.url = 'https://widget.example.com/s/1';
          return { sender: ceremony.webContents, senderFrame: ceremony.webContents.mainFrame };
        },
      ],
      [
        'another window showing an app page',
        () => {
          const other = new FakeBrowserWindow({});
          other.webContents.mainFrame.url = 'app://desk/index.html';
          return { sender: other.webContents, senderFrame: other.webContents.mainFrame };
        },
      ],
      [
        'an iframe of the main window',
        () => ({
          sender: main.webContents,
          senderFrame: new FakeWebFrame('app://desk/index.html', main.webContents.mainFrame),
        }),
      ],
      [
        'a frame that is not the main window’s main frame',
        () => ({ sender: main.webContents, senderFrame: new FakeWebFrame('app://desk/index.html') }),
      ],
      [
        'no frame at all (navigated away or destroyed)',
        () => ({ sender: main.webContents, senderFrame: null }),
      ],
      ...(
        [
          'https://evil.example/index.html',
          'app://desk.evil/index.html',
          'app://evil/index.html',
          'file:///opt/desk/dist/renderer/index.html',
          'about:blank',
          'data:text/html,<script>1</script>',
        ] as const
      ).map((url): [string, () => { sender: FakeWebContents; senderFrame: FakeWebFrame | null }] => [
        `the main frame showing ${url}`,
        () => {
          main.webContents.mainFrame.url = url;
          return fromMain();
        },
      ]),
    ];

    it.each(foreign)('%s', async (_label, sender) => {
      const result = await call(sender(), 'profiles.list', []);
      expect(result).toMatchObject({ ok: false, error: { code: 'forbidden_sender' } });
      expect(noHandlerCalled()).toBe(true);
      expect(log.lines.join('')).toContain('ipc.forbidden_sender');
    });

    it('when the main window is gone', async () => {
      main.destroy();
      expect(await call(fromMain(), 'profiles.list', [])).toMatchObject({
        error: { code: 'forbidden_sender' },
      });
      expect(noHandlerCalled()).toBe(true);
    });
  });

  it.each(badPayloads().map((bad) => [bad.channel, bad.label, bad] as const))(
    '%s refuses %s with invalid_arguments',
    async (_channel, _label, bad) => {
      const result = await call(fromMain(), bad.channel, bad.args);
      expect(result).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
      expect(noHandlerCalled()).toBe(true);
    },
  );

  it('never passes junk properties of an object argument to a handler', async () => {
    for (const channel of CHANNELS) {
      const valid = VALID_ARGS[channel] as readonly unknown[];
      for (const [index, arg] of valid.entries()) {
        if (!isPlainObject(arg)) continue;
        const junk = JSON.parse(
          '{"__proto__": {"polluted": true}, "junk": "x", "constructor": "y"}',
        ) as object;
        const result = await call(fromMain(), channel, replaced(valid, index, { ...arg, ...junk }));
        if (result.ok) {
          const received = handlers[channel].mock.calls.at(-1)?.[index] as Record<string, unknown>;
          expect(Object.keys(received)).not.toContain('junk');
          expect(Object.keys(received)).not.toContain('constructor');
        } else {
          expect(result.error.code).toBe('invalid_arguments');
        }
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['fs.readFile'],
    ['__proto__'],
    ['constructor'],
    ['toString'],
    [42],
    [null],
    [{ channel: 'app.info' }],
  ])('answers unknown_channel to %j', async (channel) => {
    expect(await call(fromMain(), channel, [])).toMatchObject({
      ok: false,
      error: { code: 'unknown_channel' },
    });
    expect(noHandlerCalled()).toBe(true);
  });

  it('turns handler failures into values and keeps serving calls', async () => {
    handlers['batches.list'].mockRejectedValueOnce(new Error('EACCES: /home/ana/.config/secret'));
    handlers['batches.get'].mockRejectedValueOnce(
      new DeskError('batch_not_found', 'This batch no longer exists.'),
    );
    handlers['report.csv'].mockImplementationOnce(() => {
      throw 'not even an Error';
    });
    const failed = await call(fromMain(), 'batches.list', []);
    expect(failed).toMatchObject({ ok: false, error: { code: 'internal_error' } });
    expect(JSON.stringify(failed)).not.toContain('EACCES');
    expect(await call(fromMain(), 'batches.get', ['batch-1'])).toEqual({
      ok: false,
      error: { code: 'batch_not_found', message: 'This batch no longer exists.' },
    });
    expect(await call(fromMain(), 'report.csv', ['batch-1'])).toMatchObject({
      error: { code: 'internal_error' },
    });
    expect(await call(fromMain(), 'app.info', [])).toEqual({ ok: true, value: 'app.info done' });
  });

  it('answers even when logging itself fails', async () => {
    ipc.dispose();
    registerDeskIpc({
      handlers: handlers as unknown as DeskHandlers,
      logger: {
        log() {
          throw new Error('disk full');
        },
      },
      mainWebContents: () => main.webContents as unknown as WebContents,
    });
    handlers['batches.list'].mockRejectedValueOnce(new Error('boom'));
    // The page still gets the failure it would have got, and a foreign sender its refusal.
    expect(await call(fromMain(), 'batches.list', [])).toMatchObject({
      ok: false,
      error: { code: 'internal_error' },
    });
    expect(await call({ sender: main.webContents, senderFrame: null }, 'batches.list', [])).toMatchObject({
      ok: false,
      error: { code: 'forbidden_sender' },
    });
  });

  it('sends events to the main window’s app page only', () => {
    const ceremony = new FakeBrowserWindow({ webPreferences: { partition: 'ceremony-1' } });
    ipc.emit('batch.deleted', { batchId: 'batch-1' });
    expect(main.webContents.sent).toEqual([[DESK_EVENT_CHANNEL, 'batch.deleted', { batchId: 'batch-1' }]]);
    expect(ceremony.webContents.sent).toEqual([]);

    main.webContents.mainFrame.url = 'https://evil.example/';
    ipc.emit('batch.deleted', { batchId: 'batch-2' });
    main.destroy();
    ipc.emit('batch.deleted', { batchId: 'batch-3' });
    expect(main.webContents.sent).toHaveLength(1);
  });

  it('removes its handler when disposed', () => {
    ipc.dispose();
    expect(ipcMain.handlers.size).toBe(0);
  });
});
