import {
  createApiDescription,
  issuesOf,
  nonCanonical,
  nonCanonicalKeyword,
  type ParameterSyntax,
  type ApiDescription,
  type CallbackEvent,
  type ValidationIssue,
} from '@restoapi/openapi';
import { CALLBACK_CHECKS } from '../generated/callback-checks.js';

/** The kinds of callback the service sends: the keys of the document's `webhooks`. */
export type CallbackType = CallbackEvent['type'];

/** The callback of one kind, e.g. `CallbackEventOf<'order_status_changed'>` has `status`. */
export type CallbackEventOf<T extends CallbackType> = Extract<CallbackEvent, { type: T }>;

/** The callback events as the document's standalone schemas type them (generated in `@restoapi/openapi`). */
export type { CallbackEvent, OrderCreatedEvent, OrderStatusChangedEvent } from '@restoapi/openapi';

/** The validator built from the bundled document, one per process (createApiDescription shares it). */
export function defaultValidator(): ApiDescription {
  return createApiDescription();
}

/** The outcome of {@link parseCallback}. */
export type ParsedCallback =
  | { kind: 'event'; event: CallbackEvent }
  | { kind: 'unknown_type'; type: string }
  | { kind: 'invalid'; issues: ValidationIssue[] };

/** The webhook operation of each callback type, read from the document's `webhooks`. */
function webhookOperations(validator: ApiDescription): Map<string, string> {
  const cached = operationsCache.get(validator);
  if (cached) return cached;
  const webhooks = (validator.document.webhooks ?? {}) as Record<string, { post?: { operationId?: string } }>;
  const map = new Map<string, string>();
  for (const [type, item] of Object.entries(webhooks)) {
    if (item.post?.operationId) map.set(type, item.post.operationId);
  }
  operationsCache.set(validator, map);
  return map;
}
const operationsCache = new WeakMap<ApiDescription, Map<string, string>>();

/** A webhook's query check, compiled ahead of time (see scripts/generate.ts). */
interface CompiledCallbackCheck {
  operationId: string;
  parameters: readonly string[];
  /** Number parameters and the syntax they must be written in (`order_id: 'integer'`). */
  syntax: Readonly<Record<string, ParameterSyntax>>;
  check: ((value: unknown) => boolean) & { errors?: Parameters<typeof issuesOf>[0] };
}
const compiledChecks = CALLBACK_CHECKS as Readonly<Record<string, CompiledCallbackCheck | undefined>>;

/**
 * Reads a callback's event from its query string and validates it against the document's webhook
 * operation for its `type` (so `order_id` is coerced to an integer and `status` checked against the
 * order statuses). Unknown parameters are ignored, as the document asks. Without a `validator` it uses
 * the webhooks' checks compiled ahead of time, so it also runs where `eval` is refused (Workers).
 * @example
 * const parsed = parseCallback(new URL(request.url).searchParams);
 * if (parsed.kind === 'event' && parsed.event.type === 'order_status_changed') console.log(parsed.event.status);
 */
export function parseCallback(query: URLSearchParams, validator?: ApiDescription): ParsedCallback {
  const type = query.get('type');
  if (type === null || type === '') {
    return {
      kind: 'invalid',
      issues: [{ in: 'query', pointer: '/type', name: 'type', keyword: 'required', message: 'type is required' }],
    };
  }
  if (!validator) {
    const compiled = Object.hasOwn(compiledChecks, type) ? compiledChecks[type] : undefined;
    if (!compiled) return { kind: 'unknown_type', type };
    // As validateRequest reads a single-valued parameter: `name`, else `name[]`.
    const value: Record<string, string> = {};
    for (const name of compiled.parameters) {
      const given = query.get(name) ?? query.get(`${name}[]`);
      if (given !== null) value[name] = given;
    }
    // As validateRequest reads numbers: written canonically or refused (ajv's coercion takes `0x1` as 1).
    const refused: ValidationIssue[] = [];
    for (const [name, syntax] of Object.entries(compiled.syntax)) {
      const problem = value[name] === undefined ? undefined : nonCanonical(syntax, value[name]);
      if (problem)
        refused.push({
          in: 'query',
          pointer: `/${name}`,
          name,
          keyword: nonCanonicalKeyword(syntax, value[name]!),
          message: `${name} ${problem}`,
        });
    }
    const issues = compiled.check(value)
      ? refused
      : [
          ...refused,
          ...issuesOf(compiled.check.errors, 'query').filter((i) => !refused.some((r) => r.name === i.name)),
        ];
    if (issues.length > 0) return { kind: 'invalid', issues };
    return { kind: 'event', event: value as unknown as CallbackEvent };
  }
  const operationId = webhookOperations(validator).get(type);
  // The document asks receivers to acknowledge an unknown type without acting, so a later event kind is not retried forever.
  if (!operationId) return { kind: 'unknown_type', type };
  const result = validator.validateRequest(operationId, { query });
  if (!result.valid) return { kind: 'invalid', issues: result.issues };
  return { kind: 'event', event: result.value.query as unknown as CallbackEvent };
}

/** The default dedupe key of a callback: (order_id, type, status), as callbacks carry no delivery id. */
export function callbackKey(event: CallbackEvent): string {
  return `${event.order_id}|${event.type}|${event.type === 'order_status_changed' ? event.status : ''}`;
}
