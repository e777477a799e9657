import { openapiDocument, type Backoff } from '@restoapi/openapi';

/** The callback retry policy as the document writes it (`x-retry-policy` on each webhook). */
export interface RetryPolicy extends Backoff {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  timeoutMs: number;
}

/** The kinds of callback the service sends (the document's `webhooks`). */
export type CallbackType = 'order_created' | 'order_status_changed';

/** The retry policy of a callback kind, read from the document so the mock retries exactly as documented. */
export function retryPolicy(type: CallbackType): RetryPolicy {
  const webhooks = openapiDocument.webhooks as Record<string, { post?: { 'x-retry-policy'?: RetryPolicy } }>;
  const policy = webhooks[type]?.post?.['x-retry-policy'];
  if (!policy) throw new Error(`the document has no x-retry-policy for the ${type} callback`);
  return policy;
}

/**
 * A deterministic number in [0, 1) from integers (a mulberry32 step over their mix), so jitter and
 * chaos decisions repeat exactly for the same seed, callback and attempt.
 */
export function seededRandom(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    h = Math.imul(h ^ (part | 0), 0x85ebca6b);
    h ^= h >>> 13;
  }
  let t = (h + 0x6d2b79f5) | 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
