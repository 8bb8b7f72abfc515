/**
 * How a failed bridge call reaches the person: as an error notice, or as words handed back to the
 * dialog or form they are in (a notice behind it would go unseen).
 */
import { err, ok, type Result } from '../../../shared/base/result';
import type { MessageId } from '../../../shared/i18n/catalog';
import type { BridgeErrorCode, DeskErrorCode, ErrorCode } from '../../../shared/ipc/error-codes';
import type { Translator } from '../../../shared/i18n/translator';
import { BridgeError } from '../bridge';
import type { StoreKit } from './store-shape';
import { withNotice } from './transitions';

/**
 * Failures of the way to main rather than of an operation, worded here in the current language
 * by their code: the browser host's bridge, Electron's preload and main's dispatcher report them
 * (an operation's own failures come from main already in the person's language). Every bridge
 * code has its words: one added without them does not compile.
 */
const BRIDGE_FAILURES: Readonly<Record<BridgeErrorCode, MessageId>> = {
  bridge_unavailable: 'host.unavailable',
  bridge_disconnected: 'host.lostAnswer',
  bridge_no_answer: 'host.noAnswer',
  ipc_failed: 'host.ipcFailed',
  invalid_arguments: 'host.invalidArguments',
  internal_error: 'errors.internal',
  unknown_channel: 'errors.unknownChannel',
  invalid_message: 'host.invalidMessage',
  request_id_reused: 'host.requestIdReused',
  forbidden_sender: 'host.forbiddenSender',
};

/** The words of a bridge failure's code; none for another code (the service's may be any word, `constructor` too). */
function bridgeFailureWords(code: ErrorCode): MessageId | undefined {
  return Object.hasOwn(BRIDGE_FAILURES, code) ? BRIDGE_FAILURES[code as BridgeErrorCode] : undefined;
}

/** What a user reads for a failed call, in `translator`'s language. */
export function failureText(error: unknown, translator: Translator): string {
  if (!(error instanceof BridgeError)) return translator.t('common.unexpected');
  const own = bridgeFailureWords(error.code);
  return own ? translator.t(own) : error.message;
}

/** Main's own words for a failed call, or "something unexpected" for any other failure. */
export function mainsWords(error: unknown, kit: StoreKit): string {
  return error instanceof BridgeError ? error.message : kit.t('common.unexpected');
}

/** Whether a call failed with main's `code`. */
export function failedWith(error: unknown, ...codes: readonly ErrorCode[]): error is BridgeError {
  return error instanceof BridgeError && codes.includes(error.code);
}

/** Runs a bridge call; a failure becomes an error notice with the app's own message. */
export async function attempt<T>(kit: StoreKit, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    kit.set((state) => withNotice(state, 'error', failureText(error, state.translator)));
    return undefined;
  }
}

/** How main answered the user's resolution of a document that needs a check (or an edit). */
export type CheckAnswer = Result<
  void,
  {
    readonly message: string;
    /** Main could not check the request and asks the user to confirm the link ("Link anyway"). */
    readonly needsConfirmation: boolean;
  }
>;

/** The code main gives a link it could not check, for the user to confirm (README "Sending exactly once"). */
const LINK_NEEDS_CONFIRMATION: DeskErrorCode = 'link_needs_confirmation';

/**
 * Runs a resolution of a document that needs a check. A failure is returned, not shown as a
 * notice: the dialog the user is in shows it.
 */
export async function checkAnswer(kit: StoreKit, call: () => Promise<unknown>): Promise<CheckAnswer> {
  try {
    await call();
    return ok();
  } catch (error) {
    return err({
      message: failureText(error, kit.get().translator),
      needsConfirmation: failedWith(error, LINK_NEEDS_CONFIRMATION),
    });
  }
}
