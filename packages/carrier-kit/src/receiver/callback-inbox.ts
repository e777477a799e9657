import type { CallbackEvent } from './callback-event.js';

/** A callback as the receiver recorded it before acknowledging it. */
export interface RecordedCallback {
  /** Unique per recorded delivery (two copies of one event get two ids). */
  id: string;
  /** The dedupe key it is processed under. */
  key: string;
  event: CallbackEvent;
  /** The `webhook-id` of a signed callback. */
  webhookId?: string;
  /** When the receiver accepted it (scheduler time, ms). */
  receivedAt: number;
}

/**
 * Where the receiver records each callback before it answers 2xx (Svix, Stripe and Standard Webhooks
 * receivers do the same: persist, answer, then process). `record` must be durable when it resolves; a
 * recorded callback whose processing had not finished when the process died is processed again at the
 * next start (`unfinished`). The file store's inbox (`createFileOutboxStore(…).callbackInbox`) appends and
 * fsyncs; the memory inbox (the default without one) keeps nothing across a crash.
 */
export interface CallbackInbox {
  /** Whether a recorded callback survives a crash of the process. */
  readonly durable: boolean;
  /** Records a callback; resolves once it is durable. */
  record(callback: RecordedCallback): Promise<void>;
  /** Marks a recorded callback processed; need not be durable (a lost mark only means processing a hint again). */
  finish(id: string): Promise<void>;
  /** The recorded callbacks not finished, oldest first (read at start, after a crash). */
  unfinished(): Promise<RecordedCallback[]>;
  /** Releases files or connections. */
  close?(): Promise<void>;
}

/**
 * The memory inbox, the default of a receiver without a durable one: it keeps callbacks only while the
 * process lives, so a callback acknowledged just before a crash is lost (the service will not send it again).
 * Use the file store's inbox, or `ack: 'after-processing'`, where that matters.
 */
export function createMemoryCallbackInbox(): CallbackInbox {
  const open = new Map<string, RecordedCallback>();
  return {
    durable: false,
    async record(callback) {
      open.set(callback.id, callback);
    },
    async finish(id) {
      open.delete(id);
    },
    async unfinished() {
      return [...open.values()];
    },
  };
}
