/**
 * The two raw Electron IPC channels that carry the whole contract: one for calls (the contract's
 * channel name and its arguments travel inside), one for events. Shared by the preload and the
 * shell's IPC bridge so a rename breaks both builds; nothing else uses them.
 */
export const DESK_INVOKE_CHANNEL = 'desk:invoke';
export const DESK_EVENT_CHANNEL = 'desk:event';
