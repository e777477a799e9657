import { escapePointer, mediaTypeOf, parseQueryStrict, type OperationInfo } from '@restoapi/openapi';
import type { EngineRequest } from './engine-request.js';
import { badRequest, tooLarge, unsupportedMediaType } from './http-error.js';

// One decoder for every body: a one-shot (non-streaming) decode keeps no state between calls.
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A request body as the engine hands it to validation and handlers. */
export type ParsedBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; mediaType?: undefined }
  | { kind: 'form'; value: Record<string, string>; mediaType: string }
  | { kind: 'multipart'; value: FormData; mediaType: string };

/**
 * Reads the body the way the spec says: JSON only with `application/json`
 * (Data format rules 8, Errors 5), forms and multipart for the operations that
 * take them. Limits are enforced on the bytes before parsing.
 */
export function readBody(
  request: EngineRequest,
  op: OperationInfo,
  maxBytes: number,
): ParsedBody | Promise<ParsedBody> {
  // Most requests have no body: answered at once, without a promise to wait for.
  if (request.method === 'GET' || request.method === 'HEAD' || !request.hasBody) return NO_BODY;
  // A body the adapter already holds is parsed in this turn (the common JSON write), without a promise.
  const held = request.bytesNow?.();
  if (held !== undefined) return parseSentBody(request, op, maxBytes, held);
  return readSentBody(request, op, maxBytes);
}

const NO_BODY: ParsedBody = Object.freeze({ kind: 'none' });

const ACCEPTED = new WeakMap<OperationInfo, readonly string[]>();

/** The media types an operation's body may have, listed once per operation (the document never changes). */
function acceptedMediaTypes(op: OperationInfo): readonly string[] {
  let accepted = ACCEPTED.get(op);
  if (accepted === undefined) {
    accepted = Object.freeze(Object.keys(op.requestBody?.content ?? {}));
    ACCEPTED.set(op, accepted);
  }
  return accepted;
}

async function readSentBody(request: EngineRequest, op: OperationInfo, maxBytes: number): Promise<ParsedBody> {
  const declared = request.headers.get('content-length');
  if (declared && Number(declared) > maxBytes) throw tooLarge(`The body is larger than ${maxBytes} bytes.`);
  return parseSentBody(request, op, maxBytes, await request.bytes());
}

/** The body's bytes checked and parsed as its media type says; only a multipart body is parsed with a wait. */
function parseSentBody(
  request: EngineRequest,
  op: OperationInfo,
  maxBytes: number,
  bytes: Uint8Array,
): ParsedBody | Promise<ParsedBody> {
  if (bytes.byteLength === 0) return NO_BODY;
  if (bytes.byteLength > maxBytes) throw tooLarge(`The body is larger than ${maxBytes} bytes.`);
  // No type before the parameters counts as no Content-Type at all.
  const mediaType = mediaTypeOf(request.headers.get('content-type')) || undefined;
  const accepted = acceptedMediaTypes(op);
  if (accepted.length === 0) {
    throw badRequest('invalid_body', `${op.method.toUpperCase()} ${op.path} takes no request body.`);
  }
  if (!mediaType || !accepted.includes(mediaType)) {
    throw unsupportedMediaType(
      `Content-Type ${mediaType ?? '(none)'} is not accepted here; send ${accepted.join(' or ')}${accepted.includes('application/json') ? ' (a JSON body must carry Content-Type: application/json)' : ''}.`,
    );
  }
  if (mediaType === 'application/json') {
    try {
      return { kind: 'json', value: JSON.parse(STRICT_UTF8.decode(bytes)) };
    } catch (error) {
      throw badRequest('invalid_json', `The body is not valid JSON: ${(error as Error).message}`, { pointer: '' });
    }
  }
  if (mediaType === 'application/x-www-form-urlencoded') {
    // Strict, as for JSON and the query: bytes that are not UTF-8 are refused, not read as U+FFFD.
    let text: string;
    try {
      text = STRICT_UTF8.decode(bytes);
    } catch {
      throw badRequest('invalid_body', 'The form body is not valid UTF-8.', { pointer: '' });
    }
    const { params, malformed } = parseQueryStrict(text);
    if (malformed.length > 0)
      throw badRequest('invalid_body', `The form field ${malformed[0]} is not valid percent-encoded UTF-8.`, {
        pointer: `/${escapePointer(malformed[0]!)}`,
      });
    return { kind: 'form', mediaType, value: Object.fromEntries(params) };
  }
  if (mediaType === 'multipart/form-data') return readMultipart(request, bytes, mediaType);
  throw unsupportedMediaType(`Content-Type ${mediaType} is not supported.`);
}

async function readMultipart(request: EngineRequest, bytes: Uint8Array, mediaType: string): Promise<ParsedBody> {
  try {
    const copy = new Request('http://body.local/', {
      method: 'POST',
      headers: { 'content-type': request.headers.get('content-type')! },
      body: bytes as BodyInit,
    });
    return { kind: 'multipart', mediaType, value: await copy.formData() };
  } catch {
    throw badRequest('invalid_body', 'The multipart/form-data body could not be read (check the boundary).', {
      header: 'Content-Type',
    });
  }
}

/** Plain-object view of a form body for schema validation (files become `"<binary>"`). */
export function formToObject(form: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of form.entries()) out[key] = typeof value === 'string' ? value : '<binary>';
  return out;
}
