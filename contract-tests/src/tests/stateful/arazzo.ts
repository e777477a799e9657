/**
 * A failing stateful sequence as an Arazzo 1.0.1 workflow (`--arazzo DIR`):
 * one step per request of the shrunk sequence, each expecting the status it
 * got, the logins' tokens passed on as step outputs, and a last step whose
 * success criterion is the model's expectation that the answer broke. So a
 * tool we did not write (`redocly respect`) replays the sequence and fails
 * at the same step.
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { openapiDocument } from '@restoapi/openapi';
import type { Exchange } from '../../runner/http.js';

/** What a failing sequence left: its requests and answers, and the check that failed. */
export interface FailedSequence {
  testId: string;
  /** `--seed` and `--replay` that rerun the same sequence with this suite. */
  replay: string;
  exchanges: Exchange[];
  /** The failure message of the check (`…: expected E, got G` for a value). */
  failure: string;
  /** Whether the sequence started from a reset of the demo world (control API). */
  reset: boolean;
}

interface Operation {
  id: string;
  method: string;
  pattern: RegExp;
  names: string[];
}

const operations = new Map<keyof Sources, Operation[]>();

/** The CommonJS build has no import.meta.url, but its own require. */
function resolver(): NodeRequire {
  return typeof import.meta.url === 'string' ? createRequire(import.meta.url) : require;
}

/** The paths of a source: the API's document (its carrier paths include /api-delivery), or the control API's. */
function pathsOf(source: keyof Sources): Record<string, Record<string, { operationId?: string }>> {
  if (source === 'restoapi') return openapiDocument.paths as never;
  return (resolver()('@restoapi/openapi/control.json') as { paths: never }).paths;
}

/** A document's operations as path patterns. */
function operationsOf(source: keyof Sources): Operation[] {
  const known = operations.get(source);
  if (known) return known;
  const found = Object.entries(pathsOf(source))
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => typeof op === 'object' && op?.operationId)
        .map(([method, op]) => {
          const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
          const pattern = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '([^/]+)');
          return { id: op.operationId!, method: method.toUpperCase(), pattern: new RegExp(`^${pattern}/?$`), names };
        }),
    )
    // Literal paths before templated ones (`/api/orders/{id}` must not take `/api/orders/5/receipt.html`).
    .sort((a, b) => a.names.length - b.names.length);
  operations.set(source, found);
  return found;
}

/** A literal of a simple Arazzo condition. */
function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  return JSON.stringify(value);
}

function pointerEscape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Every JSON pointer of a value, with the value there and its parent object. */
function* pointers(value: unknown, at = '', parent?: unknown): Generator<[string, unknown, unknown]> {
  yield [at, value, parent];
  if (value && typeof value === 'object')
    for (const [key, child] of Object.entries(value)) yield* pointers(child, `${at}/${pointerEscape(key)}`, value);
}

/** A success criterion of a step: a simple condition, or a JSONPath or regex query on the answer that must match. */
export type Criterion = { condition: string } | { context: string; condition: string; type: 'jsonpath' | 'regex' };

function parsed(text: string | undefined): { value: unknown } | undefined {
  if (text === undefined) return undefined;
  if (text === 'undefined') return { value: undefined };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** The field names and record ids a check's message names (`GET by id: name of dish 10001`). */
function namedIn(message: string): { words: Set<string>; ids: Set<number> } {
  return {
    words: new Set(message.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []),
    ids: new Set((message.match(/\b\d+\b/g) ?? []).map(Number)),
  };
}

/**
 * The pointer of the value a check got: a field the message names, in a record whose id it names, holding what
 * the check got (the best of these three that the answer has); undefined when no field fits.
 */
function pointerOf(body: unknown, message: string, got: { value: unknown } | undefined): [string, unknown] | undefined {
  const { words, ids } = namedIn(message);
  let best: [string, unknown, number] | undefined;
  for (const [pointer, value, parent] of pointers(body)) {
    const key = decodeURIComponent(pointer.split('/').pop() ?? '')
      .replace(/~1/g, '/')
      .replace(/~0/g, '~');
    const record = parent && typeof parent === 'object' ? (parent as Record<string, unknown>) : undefined;
    const named = key !== 'id' && words.has(key);
    const inRecord = record !== undefined && typeof record.id === 'number' && ids.has(record.id);
    const same = got !== undefined && (isDeepStrictEqual(value, got.value) || sameMembers(value, got.value));
    // A value the check got counts most; a named field in a named record is the fallback for derived checks.
    const score = (same ? 4 : 0) + (named ? 2 : 0) + (inRecord ? 1 : 0);
    if ((same && (named || inRecord || words.size === 0)) || (named && inRecord))
      if (!best || score > best[2]) best = [pointer, value, score];
  }
  return best ? [best[0], best[1]] : undefined;
}

/** Two lists with the same members in any order (a list of ids). */
function sameMembers(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  const sorted = (list: unknown[]) => list.map((x) => JSON.stringify(x)).sort();
  return isDeepStrictEqual(sorted(a), sorted(b));
}

/** Criteria that the answer holds `want` at `pointer` (an array element by element; a boolean of a derived check). */
function valueCriteria(pointer: string, want: unknown, have: unknown): Criterion[] {
  if (typeof want === 'boolean' && typeof have !== 'boolean')
    return [{ condition: `$response.body#${pointer} ${want ? '!=' : '=='} null` }];
  if (Array.isArray(want) && Array.isArray(have) && want.every((w) => w === null || typeof w !== 'object')) {
    // A list of scalars (ids), in any order: exactly as many members as expected, each one of the expected (a
    // regex on the list as text, `10001,10002`; a missing element cannot be compared in a simple condition).
    const members = [...new Set(want.map((w) => regexEscape(String(w))))].join('|');
    const condition = want.length === 0 ? '^$' : `^(?:(?:${members})(?:,|$)){${want.length}}$`;
    return [{ context: `$response.body#${pointer}`, condition, type: 'regex' }];
  }
  if (want === null || typeof want !== 'object')
    return [{ condition: `$response.body#${pointer} == ${literal(want)}` }];
  return [];
}

/** A JSONPath criterion: some record of the answer has this id. */
function hasRecord(id: number): Criterion {
  return { context: '$response.body', condition: `$..[?@.id == ${id}]`, type: 'jsonpath' };
}

/** The pointer of a record's `id` in the answer (a record listed that should not be). */
function idPointer(body: unknown, id: number): string | undefined {
  for (const [pointer, value] of pointers(body)) if (pointer.endsWith('/id') && value === id) return pointer;
  return undefined;
}

function regexEscape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * The failed check as criteria on an answer: the value the model expected where the answer holds another (the
 * field the message names, in the record it names); a record the model expected listed, or one it did not expect
 * left out; a text a document must show. A tuple check (`expected [a, b], got [a, c]`) gives one criterion per
 * differing element, found in the record that holds the agreeing ones. Empty when the answer cannot hold it.
 */
export function criteriaOfFailure(failure: string, answer: string): Criterion[] {
  const line = failure.split('\n')[0]!;
  const body = parsed(answer);
  const shows = /does not show (?:its|the) \w+ ("(?:[^"\\]|\\.)*")/.exec(line);
  if (shows)
    return [
      { context: '$response.body', condition: regexEscape(escapeHtml(JSON.parse(shows[1]!) as string)), type: 'regex' },
    ];
  if (!body) return [];
  const missing =
    /: missing ([\d, ]+)(?:;|$)/.exec(line) ??
    /\b(\d+)\b[^:]* is (?:missing from|not listed)\b/.exec(line) ??
    (/is not sideloaded/.test(line) ? /restaurant (\d+)/.exec(line) : null);
  const extra =
    /not expected ([\d, ]+)/.exec(line) ?? /order (\d+)[^:]* (?:is listed under|is in the courier's list)/.exec(line);
  if (missing || extra) {
    const criteria: Criterion[] = (missing?.[1] ?? '')
      .split(/[, ]+/)
      .filter(Boolean)
      .map((id) => hasRecord(Number(id)));
    for (const id of (extra?.[1] ?? '').split(/[, ]+/).filter(Boolean).map(Number)) {
      const pointer = idPointer(body.value, id);
      if (pointer) criteria.push({ condition: `$response.body#${pointer} != ${id}` });
    }
    return criteria;
  }
  const match = /^(.*): expected (.*), got (.*?)(?: {2}|$)/.exec(line);
  const expected = parsed(match?.[2]);
  const got = parsed(match?.[3]);
  if (!match || !expected || !got) return [];
  const [e, g] = [expected.value, got.value];
  if (Array.isArray(e) && Array.isArray(g) && e.length === g.length && e.length > 1) {
    // A tuple of fields: one criterion per differing element, in the record that holds the agreeing ones.
    const criteria: Criterion[] = [];
    e.forEach((want, i) => {
      if (isDeepStrictEqual(want, g[i]) || (want !== null && typeof want === 'object')) return;
      const siblings = g.filter((_, j) => j !== i);
      const found = [...pointers(body.value)].filter(
        ([, value, parent]) =>
          isDeepStrictEqual(value, g[i]) &&
          siblings.every((s) => Object.values((parent ?? {}) as object).some((v) => isDeepStrictEqual(v, s))),
      )[0];
      if (found) criteria.push({ condition: `$response.body#${found[0]} == ${literal(want)}` });
    });
    if (criteria.length) return criteria;
    return e
      .filter((want, i) => !isDeepStrictEqual(want, g[i]) && want !== null && typeof want !== 'object')
      .map((want) => ({
        context: '$response.body',
        condition: `$..[?@ == ${JSON.stringify(want)}]`,
        type: 'jsonpath',
      }));
  }
  const at = pointerOf(body.value, match[1]!, got);
  if (at) return valueCriteria(at[0], e, at[1]);
  if (e !== undefined && (e === null || typeof e !== 'object'))
    return [{ context: '$response.body', condition: `$..[?@ == ${JSON.stringify(e)}]`, type: 'jsonpath' }];
  return [];
}

/** The status the model expected, from a status check's message (`… answered 200, expected 401.`). */
export function expectedStatus(failure: string): Criterion | undefined {
  const match = /answered \d{3}, expected ([\dx ]+(?: or [\dx ]+)*)\./.exec(failure.split('\n')[0]!);
  if (!match) return undefined;
  const alternatives = match[1]!.split(' or ').map((s) => s.trim());
  const conditions = alternatives.map((s) =>
    /^\dxx$/.test(s) ? `($statusCode >= ${s[0]}00 && $statusCode < ${Number(s[0]) + 1}00)` : `$statusCode == ${s}`,
  );
  return { condition: conditions.join(' || ') };
}

function requestBody(exchange: Exchange): Record<string, unknown> | undefined {
  if (exchange.form)
    return { contentType: 'multipart/form-data', payload: Object.fromEntries(exchange.form.map(([k, v]) => [k, v])) };
  if (exchange.body === undefined) return undefined;
  const type = (exchange.headers['content-type'] ?? 'application/json').split(';')[0]!;
  if (type === 'application/x-www-form-urlencoded')
    return { contentType: type, payload: Object.fromEntries(new URLSearchParams(exchange.body)) };
  try {
    return { contentType: type, payload: JSON.parse(exchange.body) as unknown };
  } catch {
    return { contentType: type, payload: exchange.body };
  }
}

/** The whole answer of an exchange (the recorded `answer` is cut to a readable length). */
function answerOf(exchange: Exchange | undefined): string {
  return exchange?.fullAnswer ?? exchange?.answer ?? '';
}

/** Where a workflow finds its two documents: the API's and the mock control API's. */
export interface Sources {
  restoapi: string;
  mock: string;
}

/** A criterion at a place of the answer (not a search of the whole answer). */
function located(criterion: Criterion): boolean {
  return !('type' in criterion) || criterion.context.startsWith('$response.body#');
}

/**
 * The exchange that holds the failed value: the last one, or, where the check read several answers first (every
 * page of a list, then the checks), the latest that holds the record and field the message names. Later requests
 * of the failing command are left out, so the workflow ends at the answer the check was about.
 */
function failingIndex(failed: FailedSequence): number {
  const last = failed.exchanges.length - 1;
  if (criteriaOfFailure(failed.failure, answerOf(failed.exchanges[last])).some(located)) return last;
  for (let i = last - 1; i >= Math.max(0, last - 12); i -= 1) {
    const exchange = failed.exchanges[i]!;
    if (exchange.control) break;
    if (criteriaOfFailure(failed.failure, answerOf(exchange)).some(located)) return i;
  }
  return last;
}

/** The Arazzo document of a failing sequence (JSON, which is YAML too). */
export function arazzoOfSequence(failed: FailedSequence, sources: Sources): Record<string, unknown> {
  const tokens = new Map<string, string>();
  /** secure_id → the step whose output it is (read from the callback log, as the carrier got it). */
  const secureIds = new Map<string, string>();
  const steps: Record<string, unknown>[] = [];
  const control = failed.exchanges.some((e) => e.control);
  if (failed.reset && !failed.exchanges.some((e) => e.control === '/__mock/reset'))
    steps.push({
      stepId: 'reset',
      description: 'The demo world, as the failing run started (the mock control API).',
      operationId: '$sourceDescriptions.mock.resetMock',
      requestBody: { contentType: 'application/json', payload: { seed: 'demo' } },
      successCriteria: [{ condition: '$statusCode == 200' }],
    });
  const end = failingIndex(failed);
  let placed: string | undefined;
  failed.exchanges.slice(0, end + 1).forEach((exchange, i) => {
    const url = new URL(exchange.url);
    const path = exchange.control ?? url.pathname;
    const source = exchange.control ? 'mock' : 'restoapi';
    const operation = operationsOf(source).find((op) => op.method === exchange.method && op.pattern.test(path));
    const last = i === end;
    const stepId = `${last ? 'failing' : `step${i + 1}`}_${operation?.id ?? exchange.method.toLowerCase()}`;
    const parameters: Record<string, unknown>[] = [];
    const values = operation ? operation.pattern.exec(path)!.slice(1) : [];
    operation?.names.forEach((name, j) => {
      const value = decodeURIComponent(values[j]!);
      const from = name === 'secure_id' ? secureIds.get(value) : undefined;
      parameters.push({ name, in: 'path', value: from ? `$steps.${from}.outputs.secureId` : value });
    });
    for (const name of new Set(url.searchParams.keys())) {
      const all = url.searchParams.getAll(name);
      parameters.push({ name, in: 'query', value: all.length > 1 ? all : all[0] });
    }
    const auth = exchange.headers.authorization ?? exchange.headers.Authorization;
    const token = auth ? /token="?([^",\s]+)"?/i.exec(auth)?.[1] : undefined;
    if (token)
      parameters.push({
        name: 'Authorization',
        in: 'header',
        value: tokens.has(token) ? `Token token="{$steps.${tokens.get(token)}.outputs.token}"` : auth,
      });
    const status = last ? expectedStatus(failed.failure) : undefined;
    const criteria: Criterion[] = [status ?? { condition: `$statusCode == ${exchange.status}` }];
    if (last && !status) criteria.push(...criteriaOfFailure(failed.failure, answerOf(exchange)));
    const step: Record<string, unknown> = {
      stepId,
      description: `${exchange.method} ${path}${url.search}: answered ${exchange.status} in the failing run${last ? `; ${failed.failure.split('\n')[0]}` : ''}`,
      ...(operation
        ? { operationId: `$sourceDescriptions.${source}.${operation.id}` }
        : { 'x-operation': { method: exchange.method.toLowerCase(), url: `${url.origin}${url.pathname}` } }),
      ...(parameters.length ? { parameters } : {}),
      ...(requestBody(exchange) ? { requestBody: requestBody(exchange) } : {}),
      successCriteria: criteria,
    };
    if (operation?.id === 'createSession' && exchange.status < 300) {
      const answered = /"token"\s*:\s*"([^"]+)"/.exec(answerOf(exchange))?.[1];
      if (answered) tokens.set(answered, stepId);
      step.outputs = { token: '$response.body#/meta/token' };
    }
    steps.push(step);
    // A storefront order handed to a carrier: its secure_id reaches the carrier only in the callback, so the
    // workflow reads it from the mock's callback log, as the published carrier flow does.
    if (operation?.id === 'placeStorefrontOrder' && exchange.status < 300) {
      step.outputs = { orderId: '$response.body#/order/id' };
      placed = stepId;
    }
    const next = failed.exchanges[i + 1];
    const secureId =
      next && !next.control ? /\/api-delivery\/orders\/([^/]+)/.exec(new URL(next.url).pathname)?.[1] : undefined;
    if (placed && secureId && !secureIds.has(decodeURIComponent(secureId))) {
      const callbackStep = `callback_${placed}`;
      steps.push({
        stepId: callbackStep,
        description:
          "The order_created callback of the storefront order, with the order's secure_id (the mock's callback log).",
        operationId: '$sourceDescriptions.mock.listCallbacks',
        parameters: [{ name: 'order_id', in: 'query', value: `$steps.${placed}.outputs.orderId` }],
        successCriteria: [{ condition: '$statusCode == 200' }],
        outputs: { secureId: '$response.body#/callbacks/0/query/order_secure_id' },
      });
      secureIds.set(decodeURIComponent(secureId), callbackStep);
    }
  });
  const id = failed.testId.replace(/\W+/g, '-');
  return {
    arazzo: '1.0.1',
    info: {
      title: `Failing sequence of ${failed.testId}`,
      version: '1.0.0',
      description: `Written by restoapi-contract --arazzo. Replay with this suite: ${failed.replay}. The last step fails where the model's check failed: ${failed.failure.split('\n')[0]}`,
    },
    sourceDescriptions: [
      { name: 'restoapi', url: sources.restoapi, type: 'openapi' },
      ...(failed.reset || control ? [{ name: 'mock', url: sources.mock, type: 'openapi' }] : []),
    ],
    workflows: [
      {
        workflowId: id,
        summary: `The shrunk sequence of ${failed.testId}, request by request.`,
        description:
          'Each step expects the status the failing run got; the last one the status and the value the model expected.',
        steps,
      },
    ],
  };
}

/** The documents the workflows name, copied beside them once (so a directory of workflows runs on any machine). */
async function documentsBeside(dir: string): Promise<Sources> {
  for (const name of ['openapi.yaml', 'control.yaml'])
    await copyFile(resolver().resolve(`@restoapi/openapi/${name}`), join(dir, name));
  return { restoapi: './openapi.yaml', mock: './control.yaml' };
}

/**
 * Writes the workflow to `DIR/<test id>.arazzo.json`, with the API's document and the control API's copied into
 * `DIR` beside it (`./openapi.yaml`, `./control.yaml`): the directory replays on any machine.
 */
export async function writeArazzo(dir: string, failed: FailedSequence): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${failed.testId}.arazzo.json`);
  await writeFile(file, `${JSON.stringify(arazzoOfSequence(failed, await documentsBeside(dir)), null, 2)}\n`);
  return file;
}
