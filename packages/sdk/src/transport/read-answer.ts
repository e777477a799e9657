import type { RestoApiError } from '../errors/api-error.js';
import { errorFromResponse } from '../errors/error-from-response.js';
import type { CallRecord } from './api-promise.js';
import { transportError } from './pipeline.js';
import type { TransportCallSettings, ParseAs } from './transport.js';

/** A resource call as the pipeline carries it: its settings, how it ends and what it recorded for `withResponse()`. */
export interface ResourceCall extends TransportCallSettings, CallRecord {
  /** Turns the success body into what the method returns (an import job handle, for instance). */
  map?: ((data: unknown, response: Response) => unknown) | undefined;
  /** Sees the typed error before it is thrown. */
  onError?: ((error: RestoApiError) => void | Promise<void>) | undefined;
  /** Recognises an answer that is an error by its body, whatever its status (an import's `busy` object). */
  errorOf?: ((body: unknown, response: Response) => RestoApiError | undefined) | undefined;
}

/**
 * Reads a resource call's final answer, the way openapi-fetch parses bodies: a success resolves to its data
 * (no data for 204 or an empty body), an error answer throws its typed error (the body parsed as JSON when it is).
 * Runs inside the attempt's deadline (the pipeline's `read`), so the timeout also covers the body. A failure while
 * the body streams in is a connection error (the pipeline tells a timeout apart).
 */
export function readAnswer(response: Response, settings: TransportCallSettings): Promise<unknown> {
  const call = settings as ResourceCall;
  call.response = response;
  const parseAs = call.parseAs;
  // The common answer, JSON, takes one promise: this function is on every call's path.
  if (parseAs === undefined || parseAs === 'json' || !response.ok)
    return response.text().then(
      (text) =>
        response.ok
          ? dataOf(call, response, text === '' ? undefined : JSON.parse(text))
          : failWith(call, response, text),
      (error: unknown) => {
        throw transportError(error, call.operation!);
      },
    );
  return readOther(call, response, parseAs);
}

/** What the method resolves to: the data, through the method's `map` hook when it has one. */
function dataOf(call: ResourceCall, response: Response, data: unknown): unknown {
  const refusal = call.errorOf?.(data, response);
  if (refusal) return reject(call, refusal);
  return call.map ? call.map(data, response) : data;
}

/** Throws a typed error (after the method's `onError` hook), recording it for `withResponse()`. */
async function reject(call: ResourceCall, typed: RestoApiError): Promise<never> {
  if (call.onError) await call.onError(typed);
  call.error = typed;
  throw typed;
}

/** A success body read as something other than JSON (`text`, `blob`, `arrayBuffer`, `stream`). */
async function readOther(call: ResourceCall, response: Response, parseAs: ParseAs): Promise<unknown> {
  if (response.status === 204 || response.headers.get('content-length') === '0')
    return dataOf(call, response, undefined);
  if (parseAs === 'stream') return dataOf(call, response, response.body);
  let data: unknown;
  try {
    data = await response[parseAs]();
  } catch (error) {
    throw transportError(error, call.operation!);
  }
  return dataOf(call, response, data);
}

/** Throws the typed error of an error answer (after the method's `onError` hook). */
async function failWith(call: ResourceCall, response: Response, text: string): Promise<never> {
  let body: unknown = text === '' ? undefined : text;
  try {
    if (text !== '') body = JSON.parse(text);
  } catch {
    // Not JSON: the error body stays text.
  }
  return reject(call, call.errorOf?.(body, response) ?? errorFromResponse(response, body, call.operation!));
}
