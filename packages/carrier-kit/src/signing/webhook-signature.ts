// Standard Webhooks signatures as the API document describes them for callbacks (`webhook-signature`):
// HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<query string>`, because callbacks have an empty body.
// Web Crypto only, so verification also runs on edge runtimes.

import { fromBase64, signWebhook, webhookSecretKey } from '@restoapi/openapi';

/** Why a signature check failed. */
export type SignatureFailure =
  | 'missing_headers'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'no_matching_signature'
  | 'invalid_secret';

/** The outcome of {@link verifyWebhookSignature}. */
export type SignatureCheck =
  { valid: true; webhookId: string; timestamp: number } | { valid: false; reason: SignatureFailure; message: string };

/** What {@link verifyWebhookSignature} checks. */
export interface SignatureInput {
  /** The registered secret(s), `whsec_<base64 key>`; several while a secret is rotated. */
  secret: string | readonly string[];
  /** The request's headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). */
  headers: Headers;
  /** The signed content: the request's query string exactly as received, without the `?`. */
  content: string;
  /** Largest difference between the timestamp and `nowMs`, in seconds (default 300, as the document advises). */
  toleranceSec?: number;
  /** The receiver's clock, in milliseconds (default `Date.now()`). */
  nowMs?: number;
}

/** Computes a `webhook-signature` value, `v1,<base64 HMAC-SHA256>` (the scheme shared with the mock). */
export { signWebhook, webhookSecretKey };

/** Compares two byte strings in time independent of where they differ. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

/**
 * Verifies the Standard Webhooks headers of a callback: the timestamp is within the tolerance and one
 * of the `v1` signatures matches one of the secrets (compared in constant time).
 * @example
 * const url = new URL(request.url);
 * const check = await verifyWebhookSignature({ secret, headers: request.headers, content: url.search.slice(1) });
 * if (!check.valid) return new Response(check.message, { status: 401 });
 */
export async function verifyWebhookSignature(input: SignatureInput): Promise<SignatureCheck> {
  const id = input.headers.get('webhook-id');
  const timestampText = input.headers.get('webhook-timestamp');
  const signatures = input.headers.get('webhook-signature');
  if (!id || !timestampText || !signatures) {
    return {
      valid: false,
      reason: 'missing_headers',
      message: 'webhook-id, webhook-timestamp and webhook-signature are required',
    };
  }
  if (!/^[0-9]+$/.test(timestampText)) {
    return {
      valid: false,
      reason: 'invalid_timestamp',
      message: 'webhook-timestamp must be seconds since the Unix epoch',
    };
  }
  const timestamp = Number(timestampText);
  const nowSec = Math.floor((input.nowMs ?? Date.now()) / 1000);
  const tolerance = input.toleranceSec ?? 300;
  if (timestamp < nowSec - tolerance) {
    return {
      valid: false,
      reason: 'timestamp_too_old',
      message: `webhook-timestamp is more than ${tolerance} s in the past`,
    };
  }
  if (timestamp > nowSec + tolerance) {
    return {
      valid: false,
      reason: 'timestamp_too_new',
      message: `webhook-timestamp is more than ${tolerance} s in the future`,
    };
  }
  const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret;
  const offered = signatures
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => fromBase64(part.slice(3)))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== undefined);
  let usableSecret = false;
  for (const secret of secrets) {
    if (!webhookSecretKey(secret)) continue;
    usableSecret = true;
    // The same computation the signing side runs, decoded back to bytes for a constant-time compare.
    const expected = fromBase64((await signWebhook(secret, id, timestampText, input.content)).slice(3))!;
    // Every offered signature is compared, so timing does not tell which one matched.
    let match = false;
    for (const candidate of offered) match = constantTimeEqual(expected, candidate) || match;
    if (match) return { valid: true, webhookId: id, timestamp };
  }
  if (!usableSecret) return { valid: false, reason: 'invalid_secret', message: 'no secret is a whsec_ base64 key' };
  return { valid: false, reason: 'no_matching_signature', message: 'no webhook-signature matches the secret' };
}
