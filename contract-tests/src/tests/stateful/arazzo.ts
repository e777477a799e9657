/**
 * A failing stateful sequence as an Arazzo 1.0.1 workflow (`--arazzo DIR`):
 * one step per request of the shrunk sequence, each expecting the status it
 * got, the logins' tokens passed on as step outputs, and a last step whose
 * success criterion is the model's expectation that the answer broke. So a
 * tool we did not write (`redocly respect`) replays the sequence and fails
 * at the same step.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
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

let operations: Operation[] | undefined;

/** The document's operations as path patterns (the carrier API's paths include /api-delivery). */
function operationsOfDocument(): Operation[] {
  operations ??= Object.entries(openapiDocument.paths as Record<string, Record<string, { operationId?: string }>>)
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => typeof op === 'object' && op?.operationId)
        .map(([method, op]) => {
          const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
          const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '([^/]+)');
          return { id: op.operationId!, method: method.toUpperCase(), pattern: new RegExp(`^${source}/?$`), names };
        }),
    )
    // Literal paths before templated ones (`/api/orders/{id}` must not take `/api/orders/5/receipt.html`).
    .sort((a, b) => a.names.length - b.names.length);
  return operations;
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

/** A success criterion of a step: a simple condition, or a JSONPath query on the answer that must match. */
export type Criterion = { condition: string } | { context: string; condition: string; type: 'jsonpath' };

function parsed(text: string | undefined): { value: unknown } | undefined {
  if (text === undefined) return undefined;
  if (text === 'undefined') return { value: undefined };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * The failed check as criteria on the last answer: where the answer holds the value the check got, the value the
 * model expected (a tuple check, `expected [a, b], got [a, c]`, gives one criterion per differing element, found in
 * the record that holds the agreeing ones). Where the answer lacks the value, the expected value must appear in it.
 */
export function criteriaOfFailure(failure: string, answer: string): Criterion[] {
  const match = /: expected (.*), got (.*?)(?: {2}|$)/.exec(failure.split('\n')[0]!);
  const body = parsed(answer);
  const expected = parsed(match?.[1]);
  const got = parsed(match?.[2]);
  if (!body || !expected || !got) return [];
  const [e, g] = [expected.value, got.value];
  const pairs: [unknown, unknown, unknown[]][] =
    Array.isArray(e) && Array.isArray(g) && e.length === g.length
      ? e.flatMap((want, i) => (isDeepStrictEqual(want, g[i]) ? [] : [[want, g[i], e.filter((_, j) => j !== i)]]))
      : [[e, g, []]];
  const criteria: Criterion[] = [];
  for (const [want, have, siblings] of pairs) {
    if (want !== null && typeof want === 'object') continue;
    const candidates =
      have === undefined ? [] : [...pointers(body.value)].filter(([, value]) => isDeepStrictEqual(value, have));
    const inRecord = candidates.filter(([, , parent]) =>
      siblings.every((s) => Object.values((parent ?? {}) as object).some((v) => isDeepStrictEqual(v, s))),
    );
    const [pointer] = (inRecord.length ? inRecord : candidates)[0] ?? [];
    if (pointer !== undefined) criteria.push({ condition: `$response.body#${pointer} == ${literal(want)}` });
    else if (want !== undefined)
      criteria.push({ context: '$response.body', condition: `$..[?@ == ${JSON.stringify(want)}]`, type: 'jsonpath' });
  }
  return criteria;
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

/** The Arazzo document of a failing sequence (JSON, which is YAML too). */
export function arazzoOfSequence(failed: FailedSequence, openapiUrl: string): Record<string, unknown> {
  const tokens = new Map<string, string>();
  const steps: Record<string, unknown>[] = [];
  if (failed.reset)
    steps.push({
      stepId: 'reset',
      description: 'The demo world, as the failing run started (the mock control API).',
      operationId: '$sourceDescriptions.mock.resetMock',
      requestBody: { contentType: 'application/json', payload: { seed: 'demo' } },
      successCriteria: [{ condition: '$statusCode == 200' }],
    });
  failed.exchanges.forEach((exchange, i) => {
    const url = new URL(exchange.url);
    const operation = operationsOfDocument().find(
      (op) => op.method === exchange.method && op.pattern.test(url.pathname),
    );
    const last = i === failed.exchanges.length - 1;
    const stepId = `${last ? 'failing' : `step${i + 1}`}_${operation?.id ?? exchange.method.toLowerCase()}`;
    const parameters: Record<string, unknown>[] = [];
    const values = operation ? operation.pattern.exec(url.pathname)!.slice(1) : [];
    operation?.names.forEach((name, j) => parameters.push({ name, in: 'path', value: decodeURIComponent(values[j]!) }));
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
    const criteria: Criterion[] = [{ condition: `$statusCode == ${exchange.status}` }];
    if (last) criteria.push(...criteriaOfFailure(failed.failure, exchange.answer));
    const step: Record<string, unknown> = {
      stepId,
      description: `${exchange.method} ${url.pathname}${url.search}: answered ${exchange.status} in the failing run${last ? `; ${failed.failure.split('\n')[0]}` : ''}`,
      ...(operation
        ? { operationId: `$sourceDescriptions.restoapi.${operation.id}` }
        : { 'x-operation': { method: exchange.method.toLowerCase(), url: `${url.origin}${url.pathname}` } }),
      ...(parameters.length ? { parameters } : {}),
      ...(requestBody(exchange) ? { requestBody: requestBody(exchange) } : {}),
      successCriteria: criteria,
    };
    if (operation?.id === 'createSession' && exchange.status < 300) {
      const answered = /"token"\s*:\s*"([^"]+)"/.exec(exchange.answer)?.[1];
      if (answered) tokens.set(answered, stepId);
      step.outputs = { token: '$response.body#/meta/token' };
    }
    steps.push(step);
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
      { name: 'restoapi', url: openapiUrl, type: 'openapi' },
      ...(failed.reset
        ? [{ name: 'mock', url: openapiUrl.replace(/openapi\.yaml$/, 'control.yaml'), type: 'openapi' }]
        : []),
    ],
    workflows: [
      {
        workflowId: id,
        summary: `The shrunk sequence of ${failed.testId}, request by request.`,
        description:
          'Each step expects the status the failing run got; the last one also the value the model expected.',
        steps,
      },
    ],
  };
}

/** Writes the workflow to `DIR/<test id>.arazzo.json` (its source description points at the installed document). */
export async function writeArazzo(dir: string, failed: FailedSequence): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${failed.testId}.arazzo.json`);
  // The CommonJS build has no import.meta.url, but its own require.
  const resolver = typeof import.meta.url === 'string' ? createRequire(import.meta.url) : require;
  const document = resolver.resolve('@restoapi/openapi/openapi.yaml');
  const url = relative(dirname(file), document).split('\\').join('/');
  await writeFile(file, `${JSON.stringify(arazzoOfSequence(failed, url), null, 2)}\n`);
  return file;
}
