import type { ApiDescription, ValidationIssue } from '@restoapi/openapi';
import { createMemoryDedupeStore, type DedupeStore } from '../dedupe/dedupe-store.js';
import { discardAudit, type AuditSink } from '../observability/audit-trail.js';
import { silentLogger, type Logger } from '../observability/logger.js';
import { verifyWebhookSignature } from '../signing/webhook-signature.js';
import { systemScheduler, type Scheduler } from '../time/scheduler.js';
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
   * When to acknowledge. `immediate` (default): 202 at once, handlers run in the background, as the
   * service asks for a quick answer. `after-processing`: the answer waits for the handlers and is a 500
   * when they fail, so the service retries; use it when losing a hint to a crash is worse than a slow
   * answer (the service gives up waiting after 10 s).
   */
  ack?: 'immediate' | 'after-processing';
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
  /** Answers one callback request: 2xx at once, processing continues in the background. */
  readonly handle: FetchHandler;
  /** Adds a handler for one callback type; returns a function that removes it. */
  on<T extends CallbackType>(type: T, handler: CallbackHandler<T>): () => void;
  /** Resolves when no callback is being processed. */
  idle(): Promise<void>;
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
 * with an in-flight lock, acknowledges at once and runs the typed handlers in the background.
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

  const runHandlers = async (event: CallbackEvent, context: CallbackContext): Promise<boolean> => {
    try {
      for (const handler of handlers.get(event.type) ?? []) {
        await handler(event, context);
      }
      stats.processed += 1;
      if (store) await store.complete(context.key, ttlMs);
      return true;
    } catch (error) {
      stats.failed += 1;
      logger.error('callback handler failed', { type: event.type, order_id: event.order_id, error: String(error) });
      audit.record({
        at: scheduler.now(),
        step: 'callback_failed',
        secureId: event.order_secure_id,
        orderId: event.order_id,
        detail: `processing ${event.type} failed: ${error instanceof Error ? error.message : String(error)}`,
      });
      if (store) await Promise.resolve(store.release(context.key)).catch(() => undefined);
      options.onError?.(error, event);
      return false;
    }
  };

  const handle: FetchHandler = async (request) => {
    stats.received += 1;
    if (request.method !== 'POST') {
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
        logger.warn('callback refused: bad signature', { reason: check.reason, query: url.search });
        return errorResponse(401, 'invalid_signature', 'Invalid signature', [
          { detail: check.message, header: 'webhook-signature' },
        ]);
      }
    }

    const parsed = parseCallback(url.searchParams, validator);
    if (parsed.kind === 'invalid') {
      stats.invalid += 1;
      logger.warn('callback refused: invalid parameters', {
        query: url.search,
        issues: parsed.issues.map((i) => i.message),
      });
      return errorResponse(400, 'invalid_parameter', 'Invalid callback parameter', describeIssues(parsed.issues));
    }
    if (parsed.kind === 'unknown_type') {
      stats.ignored += 1;
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
    const work = runHandlers(event, { webhookId, receivedAt: base.at, key });
    inflight.add(work);
    void work.finally(() => inflight.delete(work));
    if (options.ack === 'after-processing') {
      return (await work)
        ? ack(200, 'processed')
        : errorResponse(500, 'processing_failed', 'Processing failed', [
            { detail: 'The callback could not be processed; send it again.' },
          ]);
    }
    return ack(202, 'accepted');
  };

  return {
    handle,
    on,
    async idle() {
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
    get stats() {
      return { ...stats };
    },
  };
}
