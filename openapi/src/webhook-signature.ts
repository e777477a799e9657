// The callback signature the document decides (`webhook-signature`, Standard Webhooks style), in one
// place for the side that signs (the mock) and the side that verifies (the carrier kit).
// Web Crypto only, not node:crypto: both run in browsers and on edge runtimes too.

const SECRET_PREFIX = 'whsec_';

/** Decodes standard base64; `undefined` when the text is not base64 (signatures and secrets come from outside). */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The HMAC key of a `whsec_<base64>` secret; `undefined` when the secret is malformed or the key empty. */
export function webhookSecretKey(secret: string): Uint8Array<ArrayBuffer> | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return undefined;
  const key = fromBase64(secret.slice(SECRET_PREFIX.length));
  return key && key.length > 0 ? key : undefined;
}

/**
 * The `webhook-signature` value for one call: `v1,<base64 HMAC-SHA256 of "id.timestamp.content">`.
 * The document signs the query string as `content` because callbacks have an empty body.
 */
export async function signWebhook(secret: string, id: string, timestamp: string, content: string): Promise<string> {
  const key = webhookSecretKey(secret);
  if (!key) throw new RangeError('the signing secret must be whsec_ followed by a non-empty base64 key');
  const cryptoKey = await globalThis.crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = await globalThis.crypto.subtle.sign(
    'HMAC',
    cryptoKey,
    new TextEncoder().encode(`${id}.${timestamp}.${content}`),
  );
  return `v1,${toBase64(new Uint8Array(mac))}`;
}
