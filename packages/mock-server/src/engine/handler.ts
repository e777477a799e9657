import type { OperationInfo } from '@restoapi/openapi';
import type { carrierOperations, operations as mainOperations } from '@restoapi/openapi';
import type { Actor } from '../session/actor.js';
import type { MockRuntime } from './runtime.js';

type AllOperations = mainOperations & carrierOperations;
/** Every operationId of the main and carrier APIs. */
export type OperationId = keyof AllOperations;

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type ParamsOf<Op extends OperationId, Where extends string> = AllOperations[Op] extends { parameters: infer P }
  ? P extends Record<Where, infer Q>
    ? NonNullable<Q>
    : Record<string, never>
  : Record<string, never>;

/** The JSON request body of an operation, as the generated types describe it. */
export type BodyOf<Op extends OperationId> = AllOperations[Op] extends { requestBody?: infer R }
  ? JsonOf<NonNullable<R>>
  : never;
/** The query parameters of an operation after coercion (defaults applied). */
export type QueryOf<Op extends OperationId> = ParamsOf<Op, 'query'>;
/** The path parameters of an operation after coercion. */
export type PathOf<Op extends OperationId> = ParamsOf<Op, 'path'>;
/** The JSON body of a 2xx answer of an operation. */
export type ResultOf<Op extends OperationId> = AllOperations[Op] extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 ? JsonOf<R[S]> : never }[keyof R]
  : never;

/** What a handler receives: the validated request and the runtime. */
export interface HandlerContext<Op extends OperationId = OperationId> {
  operation: OperationInfo;
  params: PathOf<Op>;
  query: QueryOf<Op>;
  /** The parsed JSON body (validated), or the form fields for form operations. */
  body: BodyOf<Op>;
  /** The multipart body, for photo uploads. */
  form: FormData | undefined;
  /** The signed-in account; set on every authenticated operation. */
  actor: Actor;
  runtime: MockRuntime;
  request: Request;
  url: URL;
  requestId: string;
}

/**
 * A JSON body that is already serialized, for answers assembled from cached parts (order views): the
 * engine sends its content (text, or UTF-8 bytes) as is instead of `JSON.stringify`-ing a value, and
 * response validation parses it, so it checks exactly what is sent.
 */
export class JsonText {
  #text: string | undefined;

  /** The JSON as text, or as its UTF-8 bytes (sent as they are: a large page need not be encoded again). */
  constructor(readonly content: string | Uint8Array) {
    if (typeof content === 'string') this.#text = content;
  }

  /** The JSON as text (decoded from the bytes on first read, for response validation). */
  get text(): string {
    this.#text ??= UTF8.decode(this.content as Uint8Array);
    return this.#text;
  }
}

const UTF8 = new TextDecoder();

/** A handler's answer. `body` is sent as JSON (a {@link JsonText} as it is) unless `raw` is given. */
export interface HandlerResult {
  status: number;
  body?: unknown;
  raw?: Uint8Array | string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** Implements one operation. Handlers validate everything before they change state. */
export type Handler<Op extends OperationId = OperationId> = (
  ctx: HandlerContext<Op>,
) => HandlerResult | Promise<HandlerResult>;

/** Handlers by operationId; each domain folder exports one of these. */
export type HandlerMap = { [Op in OperationId]?: Handler<Op> };

/** 200 with a JSON body. */
export function ok<T>(body: T, headers?: Record<string, string>): HandlerResult {
  // Two literals rather than a spread of a conditional one: every 200 answer goes through here.
  return headers ? { status: 200, body, headers } : { status: 200, body };
}

/** 201 with a JSON body and the new resource's `Location`. */
export function created<T>(body: T, location: string): HandlerResult {
  return { status: 201, body, headers: { Location: location } };
}

/** 202 with a JSON body. */
export function accepted<T>(body: T): HandlerResult {
  return { status: 202, body };
}

/** 204 without a body. */
export function noContent(): HandlerResult {
  return { status: 204 };
}
