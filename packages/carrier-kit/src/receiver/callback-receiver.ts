import type { MeterProvider } from '@opentelemetry/api';
import type { ApiDescription, ValidationIssue } from '@restoapi/openapi';
import { createMemoryDedupeStore, type DedupeStore } from '../dedupe/dedupe-store.js';
import { discardAudit, type AuditSink } from '../observability/audit-trail.js';
import { silentLogger, type Logger } from '../observability/logger.js';
import { receiverMetrics } from '../observability/metrics.js';
import { verifyWebhookSignature } from '../signing/webhook-signature.js';
import { systemScheduler, type Scheduler } from '../time/scheduler.js';
import { createMemoryCallbackInbox, type CallbackInbox, type RecordedCallback } from './callback-inbox.js';
import {
  callbackKey,
  parseCallback,
  type CallbackEvent,
  type CallbackEventOf,
  type CallbackType,
} from './callback-event.js';

/** A fetch-style request handler, the shape every adapter of the kit wraps. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** What a callback handler gets besides the event. */
export interface CallbackContext {
  /** The callback's `webhook-id`, sent only to carriers that registered a signing secret. */
  webhookId: string | undefined;
  /** When the receiver accepted the callback (scheduler time, ms). */
  receivedAt: number;
  /** The dedupe key the callback was processed under. */
  key: string;
}

/** A handler of one callback type; the event is narrowed to that type. */
export type CallbackHandler<T extends CallbackType> = (event: CallbackEventOf<T>, context: CallbackContext) => unknown;

type AnyHandler = (event: CallbackEvent, context: CallbackContext) => unknown;

/** Handlers by callback type, discriminated on `type`. */
export type CallbackHandlers = { [T in CallbackType]?: CallbackHandler<T> };

/** Options of the deduplication of callbacks. */
export interface DedupeOptions {
  /** Where processed keys are kept (default: memory). */
  store?: DedupeStore;
  /** How long a processed callback is remembered (default 24 h; the service retries for about 20 min). */
  ttlMs?: number;
  /** How long a claim locks a key while it is processed, in case the worker dies (default 5 min). */
  leaseMs?: number;
  /** The key of a callback (default: order_id, type, status); `webhookId` is set for signed callbacks. */
  key?: (event: CallbackEvent, webhookId: string | undefined) => string;
}

/** Options of the optional signature check (an extension beyond the spec; off unless given). */
export interface SigningOptions {
  /** The secret(s) registered with the service, `whsec_…`; several while rotating. */
  secret: string | readonly string[];
  /** Largest clock difference accepted, in seconds (default 300). */
  toleranceSec?: number;
}

/** Options of {@link createCallbackReceiver}. */
export interface CallbackReceiverOptions {
  /** Handlers by callback type; more can be added with `on`. */
  handlers?: CallbackHandlers;
  /** Deduplication; `false` processes every delivery. */
  dedupe?: DedupeOptions | false;
  /** Verify Standard Webhooks signatures; unsigned or badly signed callbacks get 401. Off by default. */
  signing?: SigningOptions;
  /** The validator of the document (default: the bundled document's webhook checks, compiled ahead of time: no `eval`, so Workers run it). */
  validator?: ApiDescription;
  logger?: Logger;
  audit?: AuditSink;
  /** Clock of the dedupe TTLs and the signature tolerance. */
  scheduler?: Scheduler;
  /** Called when a handler fails (after logging); the dedupe claim is released so a redelivery is processed. */
  onError?: (error: unknown, event: CallbackEvent) => void;
  /**
   * When to acknowledge. `recorded` (default; `after-processing` on a transactional dedupe store such as
   * PostgreSQL's): once the callback is recorded in the `inbox` (an fsync'd
   * append with the file store), then the handlers run in the background; a recorded callback not
   * processed when the process died is processed at the next `resume()`. With the memory inbox (the
   * default) that record lives in memory only, so a crash between the answer and the work loses the hint.
   * `after-processing`: the answer waits for the handlers and is a 500 when they fail, so the service
   * retries (the service gives up waiting after 10 s). `immediate`: 202 at once without recording (the
   * behaviour before 0.2; loses hints in a crash whatever the inbox).
   */
  ack?: 'recorded' | 'after-processing' | 'immediate';
  /**
   * Where callbacks are recorded before they are acknowledged (default: memory, lost in a crash). The
   * agent takes the file store's inbox on its own (`createFileOutboxStore(…).callbackInbox`).
   */
  inbox?: CallbackInbox;
  /** Where the receiver's OpenTelemetry metrics go (default: the global provider of `@opentelemetry/api`). */
  meterProvider?: MeterProvider;
}

/** Counters of a receiver, for dashboards and tests. */
export interface ReceiverStats {
  /** Requests that reached the handler. */
  received: number;
  /** Valid callbacks accepted for processing. */
  accepted: number;
  /** Valid callbacks acknowledged without processing because the same one was processed or in flight. */
  duplicates: number;
  /** Callbacks refused with 400. */
  invalid: number;
  /** Callbacks refused with 401 (signature). */
  unauthorized: number;
  /** Callbacks of an unknown type, acknowledged without acting. */
  ignored: number;
  /** Callbacks whose handlers finished. */
  processed: number;
  /** Callbacks whose handlers threw. */
  failed: number;
}

/** A callback receiver: a fetch handler plus typed handler registration. */
export interface CallbackReceiver {
  /** Answers one callback request: 2xx once recorded (see `ack`), processing continues in the background. */
  readonly handle: FetchHandler;
  /** Adds a handler for one callback type; returns a function that removes it. */
  on<T extends CallbackType>(type: T, handler: CallbackHandler<T>): () => void;
  /** Resolves when no callback is being processed. */
  idle(): Promise<void>;
  /**
   * Processes the callbacks the inbox recorded and had not finished (left by a crash); answers how many.
   * Call it once the handlers are registered, at start.
   */
  resume(): Promise<number>;
  /** Waits for the callbacks being processed; those interrupted (a handler failed meanwhile) stay recorded for the next `resume()`. */
  stop(): Promise<void>;
  /** Where callbacks are recorded before they are acknowledged. */
  readonly inbox: CallbackInbox;
  /** When it acknowledges (the `ack` option, or its default for the dedupe store). */
  readonly ack: 'recorded' | 'after-processing' | 'immediate';
  /** Counters since creation. */
  readonly stats: Readonly<ReceiverStats>;
}

function errorResponse(
  status: number,
  code: string,
  title: string,
  issues: { detail: string; parameter?: string; header?: string }[],
): Response {
  const body = {
    errors: issues.map((issue) => ({
      status: String(status),
      code,
      title,
      detail: issue.detail,
      ...(issue.parameter
        ? { source: { parameter: issue.parameter } }
        : issue.header
          ? { source: { header: issue.header } }
          : {}),
    })),
  };
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

function ack(status: number, outcome: string): Response {
  return new Response(JSON.stringify({ status: outcome }), { status, headers: { 'Content-Type': 'application/json' } });
}

function describeIssues(issues: ValidationIssue[]): { detail: string; parameter?: string }[] {
  return issues.map((issue) => ({ detail: issue.message, ...(issue.name ? { parameter: issue.name } : {}) }));
}

/**
 * Creates the callback receiver: validates the query against the document's webhooks (400 with the
 * reason otherwise), optionally verifies the signature, drops duplicates by (order_id, type, status)
 * with an in-flight lock, records the callback in the inbox, acknowledges it and runs the typed handlers in
 * the background (`resume()` at start processes what a crash left recorded and unfinished).
 * @example
 * const receiver = createCallbackReceiver({
 *   handlers: { order_status_changed: (event) => console.log(event.order_id, event.status) },
 * });
 * const response = await receiver.handle(request);
 */
export function createCallbackReceiver(options: CallbackReceiverOptions = {}): CallbackReceiver {
  const scheduler = options.scheduler ?? systemScheduler;
  const logger = options.logger ?? silentLogger;
  const audit = options.audit ?? discardAudit;
  const validator = options.validator;
  const dedupe = options.dedupe === false ? undefined : (options.dedupe ?? {});
  const store = dedupe ? (dedupe.store ?? createMemoryDedupeStore({ scheduler })) : undefined;
  const ttlMs = dedupe?.ttlMs ?? 24 * 60 * 60 * 1000;
  const leaseMs = dedupe?.leaseMs ?? 5 * 60 * 1000;
  const keyOf = dedupe?.key ?? callbackKey;
  // On a store whose claims commit with the work (PostgreSQL), the commit is the durable record: answer after it.
  const ackMode = options.ack ?? (store?.transactional ? 'after-processing' : 'recorded');
  const inbox = options.inbox ?? createMemoryCallbackInbox();
  const meters = receiverMetrics(options.meterProvider);
  let stopping = false;
  let sequence = 0;
  const recordId = (at: number): string =>
    `${at.toString(36)}-${(sequence++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const handlers = new Map<CallbackType, Set<AnyHandler>>();
  const inflight = new Set<Promise<boolean>>();
  const stats: ReceiverStats = {
    received: 0,
    accepted: 0,
    duplicates: 0,
    invalid: 0,
    unauthorized: 0,
    ignored: 0,
    processed: 0,
    failed: 0,
  };

  const on = <T extends CallbackType>(type: T, handler: CallbackHandler<T>): (() => void) => {
    let set = handlers.get(type);
    if (!set) handlers.set(type, (set = new Set()));
    const stored = handler as unknown as AnyHandler;
    set.add(stored);
    return () => set.delete(stored);
  };
  for (const [type, handler] of Object.entries(options.handlers ?? {})) {
    if (handler) on(type as CallbackType, handler as CallbackHandler<CallbackType>);
  }

  const runHandlers = async (
    event: CallbackEvent,
    context: CallbackContext,
    recordedAs?: string,
    resumed = false,
  ): Promise<boolean> => {
    try {
      for (const handler of handlers.get(event.type) ?? []) {
        await handler(event, context);
      }
      stats.processed += 1;
      meters.processed('processed', event.type, resumed);
      if (store) await store.complete(context.key, ttlMs);
      if (recordedAs !== undefined) await finishRecord(recordedAs);
      return true;
    } catch (error) {
      stats.failed += 1;
      meters.processed('failed', event.type, resumed);
      logger.error('callback handler failed', { type: event.type, order_id: event.order_id, error: String(error) });
      audit.record({
        at: scheduler.now(),
        step: 'callback_failed',
        secureId: event.order_secure_id,
        orderId: event.order_id,
        detail: `processing ${event.type} failed: ${error instanceof Error ? error.message : String(error)}`,
      });
      if (store) await Promise.resolve(store.release(context.key)).catch(() => undefined);
      // Interrupted by a stop, it stays recorded and is processed at the next start; a failure of its own
      // (the agent already retried what can be retried) is final.
      if (recordedAs !== undefined && !stopping) await finishRecord(recordedAs);
      options.onError?.(error, event);
      return false;
    }
  };
  const finishRecord = (id: string): Promise<void> =>
    inbox.finish(id).catch((error: unknown) =>
      // Not fatal: the callback is processed again after a restart, and a hint may come twice.
      logger.warn('could not mark a recorded callback finished', { id, error: String(error) }),
    );
  const track = <T>(work: Promise<T>): Promise<T> => {
    const settled = work.then(
      () => true,
      () => false,
    );
    inflight.add(settled);
    void settled.finally(() => inflight.delete(settled));
    return work;
  };

  const handle: FetchHandler = async (request) => {
    stats.received += 1;
    if (request.method !== 'POST') {
      meters.received('method_not_allowed');
      return new Response(
        JSON.stringify({
          errors: [
            { status: '405', code: 'method_not_allowed', title: 'Method not allowed', detail: 'Callbacks are POSTed.' },
          ],
        }),
        {
          status: 405,
          headers: { Allow: 'POST', 'Content-Type': 'application/json' },
        },
      );
    }
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      stats.invalid += 1;
      meters.received('invalid');
      return errorResponse(400, 'invalid_url', 'Invalid callback', [{ detail: 'The request URL cannot be parsed.' }]);
    }
    // The body is empty by the document; drain it so keep-alive connections stay usable.
    if (request.body) await request.arrayBuffer().catch(() => undefined);

    if (options.signing) {
      const check = await verifyWebhookSignature({
        secret: options.signing.secret,
        headers: request.headers,
        content: url.search.slice(1),
        toleranceSec: options.signing.toleranceSec ?? 300,
        nowMs: scheduler.now(),
      });
      if (!check.valid) {
        stats.unauthorized += 1;
        meters.received('unauthorized');
        logger.warn('callback refused: bad signature', { reason: check.reason, query: url.search });
        return errorResponse(401, 'invalid_signature', 'Invalid signature', [
          { detail: check.message, header: 'webhook-signature' },
        ]);
      }
    }

    const parsed = parseCallback(url.searchParams, validator);
    if (parsed.kind === 'invalid') {
      stats.invalid += 1;
      meters.received('invalid');
      logger.warn('callback refused: invalid parameters', {
        query: url.search,
        issues: parsed.issues.map((i) => i.message),
      });
      return errorResponse(400, 'invalid_parameter', 'Invalid callback parameter', describeIssues(parsed.issues));
    }
    if (parsed.kind === 'unknown_type') {
      stats.ignored += 1;
      meters.received('ignored', parsed.type);
      logger.info('callback of an unknown type acknowledged without acting', { type: parsed.type });
      const secureId = url.searchParams.get('order_secure_id');
      if (secureId)
        audit.record({
          at: scheduler.now(),
          step: 'callback_ignored',
          secureId,
          detail: `unknown callback type ${parsed.type}`,
        });
      return ack(202, 'ignored');
    }

    const { event } = parsed;
    const webhookId = request.headers.get('webhook-id') ?? undefined;
    const key = keyOf(event, webhookId);
    const base = { at: scheduler.now(), secureId: event.order_secure_id, orderId: event.order_id };
    const data = { ...event, ...(webhookId ? { webhook_id: webhookId } : {}) } as Record<string, unknown>;
    if (store) {
      const claim = await store.claim(key, leaseMs);
      if (claim !== 'claimed') {
        stats.duplicates += 1;
        meters.received('duplicate', event.type);
        meters.duplicated(event.type);
        logger.debug('duplicate callback acknowledged', { key, claim });
        audit.record({
          ...base,
          step: 'callback_duplicate',
          detail: `duplicate ${event.type} (${claim === 'done' ? 'already processed' : 'in flight'})`,
          data,
        });
        return ack(200, 'duplicate');
      }
    }
    stats.accepted += 1;
    audit.record({
      ...base,
      step: 'callback_received',
      detail: `${event.type}${event.type === 'order_status_changed' ? ` (claims ${event.status})` : ''}`,
      data,
    });
    logger.debug('callback accepted', data);
    const context = { webhookId, receivedAt: base.at, key };
    let recordedAs: string | undefined;
    if (ackMode === 'recorded') {
      const recorded: RecordedCallback = {
        id: recordId(base.at),
        key,
        event,
        ...(webhookId ? { webhookId } : {}),
        receivedAt: base.at,
      };
      try {
        await inbox.record(recorded);
      } catch (error) {
        // Not recorded, not acknowledged: the service sends it again.
        logger.error('could not record a callback; answered 503', { key, error: String(error) });
        meters.received('not_recorded', event.type);
        if (store) await Promise.resolve(store.release(key)).catch(() => undefined);
        return errorResponse(503, 'not_recorded', 'Callback not recorded', [
          { detail: 'The callback could not be stored; send it again.' },
        ]);
      }
      recordedAs = recorded.id;
    }
    meters.received('accepted', event.type);
    const work = track(runHandlers(event, context, recordedAs));
    if (ackMode === 'after-processing') {
      return (await work)
        ? ack(200, 'processed')
        : errorResponse(500, 'processing_failed', 'Processing failed', [
            { detail: 'The callback could not be processed; send it again.' },
          ]);
    }
    return ack(202, 'accepted');
  };

  const resume = async (): Promise<number> => {
    stopping = false;
    const left = await inbox.unfinished();
    for (const recorded of left) {
      const { event, key } = recorded;
      if (store) {
        const claim = await store.claim(key, leaseMs);
        if (claim !== 'claimed') {
          // Another replica has it, or it was processed before the crash and only the mark was lost.
          if (claim === 'done') await finishRecord(recorded.id);
          continue;
        }
      }
      logger.info('processing a callback recorded before a restart', { key });
      audit.record({
        at: scheduler.now(),
        step: 'callback_received',
        secureId: event.order_secure_id,
        orderId: event.order_id,
        detail: `${event.type} recorded before a restart, processed now`,
        data: { ...event },
      });
      const context = {
        webhookId: recorded.webhookId,
        receivedAt: recorded.receivedAt,
        key,
      };
      void track(runHandlers(event, context, recorded.id, true));
    }
    return left.length;
  };

  return {
    handle,
    on,
    inbox,
    ack: ackMode,
    async idle() {
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
    resume: () => track(resume()),
    async stop() {
      stopping = true;
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
    get stats() {
      return { ...stats };
    },
  };
}
