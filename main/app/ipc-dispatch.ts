import {
  describeArgumentIssues,
  invokeChannels,
  type DeskHandlers,
  type InvokeChannel,
  type IpcResult,
} from '../../shared/ipc/contract';
import type { Logger } from '../base/log';
import { DeskError } from './desk-error';

function isChannel(value: unknown): value is InvokeChannel {
  return typeof value === 'string' && Object.hasOwn(invokeChannels, value);
}

/**
 * The one entry point for every call from a renderer, whatever the transport: the channel must
 * exist, the arguments (received as `unknown`) must parse with the channel's schema, then the
 * handler runs. Returns `{ ok, value }` or `{ ok: false, error }`; never throws, never leaks a
 * stack trace. The transport checks the sender before calling this.
 */
export async function dispatchInvoke(
  handlers: DeskHandlers,
  channel: unknown,
  args: unknown,
  logger: Logger,
): Promise<IpcResult<unknown>> {
  if (!isChannel(channel)) {
    logger.log('warn', 'ipc.unknown_channel', {
      channel: typeof channel === 'string' ? channel.slice(0, 80) : typeof channel,
    });
    return {
      ok: false,
      error: { code: 'unknown_channel', message: 'The app does not offer this operation.' },
    };
  }
  const parsed = invokeChannels[channel].args.safeParse(args);
  if (!parsed.success) {
    return {
      ok: false,
      error: {
        code: 'invalid_arguments',
        message: `Invalid request: ${describeArgumentIssues(parsed.error)}.`,
      },
    };
  }
  const handler = handlers[channel] as (...parsedArgs: unknown[]) => Promise<unknown>;
  try {
    const value = await handler(...(parsed.data as unknown[]));
    return { ok: true, value };
  } catch (error) {
    if (error instanceof DeskError) return { ok: false, error: { code: error.code, message: error.message } };
    logger.log('error', 'ipc.handler_failed', {
      channel,
      error: error instanceof Error ? error.name : typeof error,
    });
    return {
      ok: false,
      error: {
        code: 'internal_error',
        message: 'Something went wrong in the app. Nothing was lost; try again.',
      },
    };
  }
}
