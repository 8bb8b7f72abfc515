/**
 * The browser host's events, numbered and kept for a while: a page whose connection broke says
 * the last number it got, and is sent what it missed instead of losing it (a missed
 * `keychain.waiting: false` would leave its banner up for good).
 */
import { randomBytes } from 'node:crypto';
import type { EventChannel } from '../../shared/ipc/contract';
import type { EventMessage } from '../../shared/ipc/browser-host-protocol';

/** Enough for minutes of a busy send (progress comes a few times a second per upload). */
const DEFAULT_MAX_EVENTS = 5_000;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

export interface EventLogLimits {
  /** Past these, the oldest events are dropped; a page that missed them reads everything anew. */
  readonly maxEvents?: number;
  readonly maxBytes?: number;
}

export interface NumberedEvent {
  readonly seq: number;
  /** The event message as sent to pages. */
  readonly text: string;
}

export interface EventLog {
  /** This launch of the host: event numbers mean nothing to a page of another launch. */
  readonly launch: string;
  /** The number of the latest event (0 before the first). */
  latest(): number;
  /** Numbers the event, keeps it, and returns it for sending. */
  record(event: EventChannel, payload: unknown): NumberedEvent;
  /** The events after `seq`, oldest first; undefined when some of them are no longer kept. */
  after(seq: number): readonly NumberedEvent[] | undefined;
}

export function createEventLog(limits: EventLogLimits = {}): EventLog {
  const maxEvents = limits.maxEvents ?? DEFAULT_MAX_EVENTS;
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  const launch = randomBytes(12).toString('base64url');
  // Oldest first; `start` skips dropped entries without shifting the array at every event.
  let kept: NumberedEvent[] = [];
  let start = 0;
  let bytes = 0;
  let latest = 0;

  return {
    launch,
    latest: () => latest,
    record(event, payload) {
      latest += 1;
      const message: EventMessage = { type: 'event', seq: latest, event, payload };
      const numbered = { seq: latest, text: JSON.stringify(message) };
      kept.push(numbered);
      bytes += numbered.text.length;
      while (kept.length - start > maxEvents || (bytes > maxBytes && kept.length - start > 0)) {
        bytes -= (kept[start] as NumberedEvent).text.length;
        start += 1;
      }
      if (start > 1_024 && start * 2 > kept.length) {
        kept = kept.slice(start);
        start = 0;
      }
      return numbered;
    },
    after(seq) {
      if (seq > latest) return undefined;
      const oldest = kept[start]?.seq ?? latest + 1;
      // Event seq + 1 must still be kept (or be the next one to come).
      if (seq + 1 < oldest) return undefined;
      return kept.slice(start + Math.max(0, seq + 1 - oldest));
    },
  };
}
