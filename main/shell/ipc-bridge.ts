/**
 * Electron's ipcMain as one transport for the desk handlers: the only place with
 * `ipcMain.handle` and `webContents.send`. Every call is checked to come from the main frame of
 * our main window showing an `app://desk/` page, then goes through `dispatchInvoke`.
 */
import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import type { DeskHandlers, EventChannel, EventPayload, IpcResult } from '../../shared/ipc/contract';
import { DESK_EVENT_CHANNEL, DESK_INVOKE_CHANNEL } from '../../shared/ipc/channels';
import { dispatchInvoke } from '../app/ipc-dispatch';
import type { Logger } from '../base/log';
import { isAppUrl } from './security';

export const FORBIDDEN_SENDER: IpcResult<never> = Object.freeze({
  ok: false,
  error: Object.freeze({ code: 'forbidden_sender', message: 'This window may not use the app.' }),
});

const INTERNAL_ERROR: IpcResult<never> = Object.freeze({
  ok: false,
  error: Object.freeze({
    code: 'internal_error',
    message: 'Something went wrong in the app. Nothing was lost; try again.',
  }),
});

/** Why a sender was refused, for the log (never its URL: it could be a secret widget URL). */
export type SenderVerdict =
  'trusted' | 'no_main_window' | 'other_web_contents' | 'no_frame' | 'sub_frame' | 'foreign_origin';

/**
 * Checks who sent an IPC call: our main window's webContents, its main frame (not an iframe),
 * on a page of the app's own origin, parsed with a URL parser.
 */
export function checkSender(event: IpcMainInvokeEvent, mainContents: WebContents | undefined): SenderVerdict {
  if (!mainContents || mainContents.isDestroyed()) return 'no_main_window';
  if (event.sender !== mainContents) return 'other_web_contents';
  const frame = event.senderFrame;
  if (!frame) return 'no_frame';
  const mainFrame = mainContents.mainFrame;
  const isMainFrame =
    frame.parent === null &&
    frame.processId === mainFrame.processId &&
    frame.routingId === mainFrame.routingId;
  if (!isMainFrame) return 'sub_frame';
  if (!isAppUrl(frame.url)) return 'foreign_origin';
  return 'trusted';
}

export interface DeskIpcOptions {
  readonly handlers: DeskHandlers;
  readonly logger: Logger;
  /** The main window's webContents, when it exists. */
  readonly mainWebContents: () => WebContents | undefined;
}

export interface DeskIpc {
  /** Sends an event to the main window's page (dropped when no app page is there to hear it). */
  emit<E extends EventChannel>(event: E, payload: EventPayload<E>): void;
  dispose(): void;
}

/** A logger that cannot fail: a full disk must not turn an answer into an exception. */
function neverThrowing(logger: Logger): Logger {
  return {
    log(level, event, fields) {
      try {
        logger.log(level, event, fields);
      } catch {
        // The line is lost; the call still gets its answer.
      }
    },
  };
}

/** Registers the invoke handler and returns the event sender. The handler never throws. */
export function registerDeskIpc(options: DeskIpcOptions): DeskIpc {
  const { handlers } = options;
  const logger = neverThrowing(options.logger);
  ipcMain.handle(
    DESK_INVOKE_CHANNEL,
    async (event, channel: unknown, args: unknown): Promise<IpcResult<unknown>> => {
      try {
        const verdict = checkSender(event, options.mainWebContents());
        if (verdict !== 'trusted') {
          logger.log('warn', 'ipc.forbidden_sender', { reason: verdict });
          return FORBIDDEN_SENDER;
        }
        return await dispatchInvoke(handlers, channel, args, logger);
      } catch (error) {
        // dispatchInvoke already turns handler failures into values; this is the last guard.
        logger.log('error', 'ipc.transport_failed', {
          error: error instanceof Error ? error.name : typeof error,
        });
        return INTERNAL_ERROR;
      }
    },
  );

  return {
    emit(event, payload) {
      const contents = options.mainWebContents();
      if (!contents || contents.isDestroyed() || !isAppUrl(contents.getURL())) return;
      contents.send(DESK_EVENT_CHANNEL, event, payload);
    },
    dispose() {
      ipcMain.removeHandler(DESK_INVOKE_CHANNEL);
    },
  };
}
