/**
 * Path and query parameters read strictly: a malformed percent-encoding or a number written any way but
 * the canonical one is refused, never repaired or guessed (`decodeURIComponent` throws on the first, and
 * ajv's type coercion reads `0x1`, ` 1`, `01`, `1e3` and `1.0` as numbers). See the `x-decision` on
 * `Id` and on the `BadRequest` response.
 */
/** How a parameter's text must be written to be read as its schema's type; `text` needs nothing special. */
export type ParameterSyntax = 'integer' | 'number' | 'text';

// A JSON integer (no `-0`) and a JSON number: the forms every client writes and every server reads alike.
const CANONICAL_INTEGER = /^(?:0|-?[1-9][0-9]*)$/;
const CANONICAL_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** Percent-decodes one path segment or query component; `undefined` when its encoding is malformed. */
export function decodeStrict(text: string): string | undefined {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** A query string read as `URLSearchParams` reads it, except that malformed percent-encoding is reported. */
export interface StrictQuery {
  /** The well-formed pairs, decoded. */
  params: URLSearchParams;
  /** Names of the pairs whose name or value is malformed (the raw name when the name itself is). */
  malformed: string[];
}

/**
 * Parses a query string (with or without its `?`). `URLSearchParams` replaces a malformed escape (`%E0`,
 * a lone `%`) with U+FFFD or keeps it as text, which silently changes the value; here such a pair is left
 * out and named instead.
 * @example parseQueryStrict('?page=%E0&per_page=5').malformed // ['page']
 */
export function parseQueryStrict(search: string): StrictQuery {
  const text = search.startsWith('?') ? search.slice(1) : search;
  if (!text.includes('%')) return { params: new URLSearchParams(text), malformed: [] };
  const params = new URLSearchParams();
  const malformed: string[] = [];
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const cut = pair.indexOf('=');
    const rawName = (cut === -1 ? pair : pair.slice(0, cut)).replace(/\+/g, ' ');
    const rawValue = cut === -1 ? '' : pair.slice(cut + 1).replace(/\+/g, ' ');
    const name = decodeStrict(rawName);
    const value = decodeStrict(rawValue);
    if (name === undefined || value === undefined) malformed.push(name ?? rawName);
    else params.append(name, value);
  }
  return { params, malformed };
}

/**
 * The syntax a parameter's schema asks of its text; arrays answer for their items. `resolve` reads a
 * `$ref` of the document the schema sits in.
 */
export function parameterSyntax(schema: unknown, resolve: (ref: string) => unknown): ParameterSyntax {
  let node = schema as { $ref?: string; type?: unknown; items?: unknown } | undefined;
  for (let hops = 0; typeof node?.$ref === 'string' && hops < 10; hops += 1) node = resolve(node.$ref) as typeof node;
  const types = Array.isArray(node?.type) ? (node.type as unknown[]) : [node?.type];
  // A parameter that also takes any string has no number syntax to enforce.
  if (types.includes('string')) return 'text';
  if (types.includes('array')) return node?.items === undefined ? 'text' : parameterSyntax(node.items, resolve);
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return 'number';
  return 'text';
}

/**
 * Why a parameter's text is not the canonical form of its type, as the end of a sentence naming it
 * (`undefined` when it is canonical). Integers: decimal digits, a `-` only where the schema allows
 * negatives (the schema's `minimum` then decides), no `+`, leading zero, space, fraction, exponent or `-0`,
 * and no larger than 2^53 − 1, the largest integer every JSON client holds exactly.
 * @example nonCanonical('integer', '0x1') // 'must be a decimal integer such as 42 (…); got "0x1"'
 */
export function nonCanonical(syntax: ParameterSyntax, text: string): string | undefined {
  if (syntax === 'text') return undefined;
  const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  if (syntax === 'integer') {
    if (!CANONICAL_INTEGER.test(text))
      return `must be a decimal integer such as 42 (digits and at most a leading -; no +, leading zero, space, fraction or exponent); got ${shown}`;
    if (!Number.isSafeInteger(Number(text))) return `must be at most ${Number.MAX_SAFE_INTEGER}; got ${shown}`;
    return undefined;
  }
  if (!CANONICAL_NUMBER.test(text) || !Number.isFinite(Number(text)))
    return `must be a decimal number such as 4.5 (a JSON number: no +, leading zero, space or hex); got ${shown}`;
  return undefined;
}

/**
 * The keyword of a parameter refused by {@link nonCanonical}: `type` when the text is no value of its type
 * (`abc`, `1.5` for an integer), `format` when it is one written another way (`01`, `+1`, `1.0`, `0x1`), and
 * `maximum` for an integer past 2^53 − 1. Only the type is stated; the written form and the range are the
 * decision on `Id`, so a service that reads `01` as 1 departs from that decision, not from the spec.
 */
export function nonCanonicalKeyword(syntax: ParameterSyntax, text: string): 'type' | 'format' | 'maximum' {
  const value = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(value) || (syntax === 'integer' && !Number.isInteger(value))) return 'type';
  return syntax === 'integer' && !Number.isSafeInteger(value) ? 'maximum' : 'format';
}
