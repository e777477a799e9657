/**
 * A fetch that spoils answers: in front of an in-process mock, it changes one JSON answer of each test of the
 * suite (a field dropped, a value of the wrong type, an empty body, `null`), chosen by a seed. It shows that no
 * answer, however wrong, makes a test throw: each test must fail naming what it expected, or pass.
 */
import type { Reporter } from '../../src/index.js';

/** How an answer is spoiled. */
export type Mangling = 'drop' | 'retype' | 'empty' | 'null';

/** Every mangling, in the order the sweep cycles through them. */
export const MANGLINGS: readonly Mangling[] = ['drop', 'retype', 'empty', 'null'];

/** A small deterministic generator (mulberry32), so a sweep replays from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** A value of another JSON type than `value`. */
function otherType(value: unknown): unknown {
  if (typeof value === 'string') return 42;
  if (typeof value === 'number') return 'forty-two';
  if (typeof value === 'boolean') return 'yes';
  if (Array.isArray(value)) return { not: 'an array' };
  if (value === null) return { unexpected: true };
  return 'not an object';
}

/** Changes one field somewhere in `body` (walking down a random path of objects and arrays); answers what. */
function spoil(body: unknown, how: 'drop' | 'retype', next: () => number): string {
  let node = body;
  let path = '';
  for (;;) {
    const keys = Array.isArray(node)
      ? node.map((_, i) => String(i))
      : node && typeof node === 'object'
        ? Object.keys(node)
        : [];
    if (keys.length === 0) return `nothing to ${how} at ${path || '/'}`;
    const key = keys[Math.floor(next() * keys.length)]!;
    const child = (node as Record<string, unknown>)[key];
    const container = node as Record<string, unknown>;
    // Go deeper half of the time while there is something below.
    if (child && typeof child === 'object' && next() < 0.5) {
      node = child;
      path += `/${key}`;
      continue;
    }
    if (how === 'drop' && !Array.isArray(container)) delete container[key];
    else if (how === 'drop') (container as unknown as unknown[]).splice(Number(key), 1);
    else container[key] = otherType(child);
    return `${how} ${path}/${key}`;
  }
}

/** What the spoiling fetch did in one test. */
export interface Spoiled {
  testId: string;
  request: string;
  what: string;
}

/**
 * Wraps `fetchImpl`: in each test (told by the returned reporter), the answer of one JSON request of the API
 * (not of the control API) is spoiled. Which request and how follow from `seed` and the test's id.
 */
export function manglingFetch(
  fetchImpl: typeof fetch,
  seed: number,
  manglings: readonly Mangling[] = MANGLINGS,
): { fetch: typeof fetch; reporter: Reporter; spoiled: Spoiled[] } {
  const spoiled: Spoiled[] = [];
  let testId = '';
  let next = random(seed);
  let target = 0;
  let seen = 0;
  const reporter: Reporter = {
    onTestStart(test) {
      testId = test.id;
      let hash = seed;
      for (const char of test.id) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
      next = random(hash);
      // Mostly early answers: the first few requests of a test are the ones every test makes.
      target = Math.floor(next() * 6);
      seen = 0;
    },
  };
  const wrapped = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const answer = await fetchImpl(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const json = /json/i.test(answer.headers.get('content-type') ?? '');
    if (!testId || url.pathname.includes('/__mock') || !json) return answer;
    if (seen++ !== target) return answer;
    const how = manglings[Math.floor(next() * manglings.length)]!;
    const text = await answer.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return new Response(text, answer);
    }
    let what: string = how;
    let out = '';
    if (how === 'empty') out = '';
    else if (how === 'null') out = 'null';
    else {
      what = spoil(body, how, next);
      out = JSON.stringify(body);
    }
    spoiled.push({ testId, request: `${init?.method ?? 'GET'} ${url.pathname}${url.search}`, what });
    const headers = new Headers(answer.headers);
    headers.delete('content-length');
    return new Response(out, { status: answer.status, statusText: answer.statusText, headers });
  }) as typeof fetch;
  return { fetch: wrapped, reporter, spoiled };
}

/**
 * Whether a failure is a crash of the test (a JavaScript error and its stack) rather than a failed expectation.
 * A test that could not read an answer fails with "the test stopped reading it: …" (runner/crash.ts), which is
 * an expectation; a bare error name, a stack frame or an error message outside that sentence is a crash.
 */
export function isCrash(failure: string | undefined): boolean {
  const text = (failure ?? '').replace(/\(the test stopped reading it: [^\n]*\)/g, '');
  return /^(TypeError|RangeError|ReferenceError|SyntaxError|Error)\b|^\s+at .+:\d+:\d+\)?$|Cannot read properties of|is not a function|is not iterable/m.test(
    text,
  );
}

/** Whether a failure is the runner's last line of defence: a test that read an answer without checking it. */
export function isUncheckedRead(failure: string | undefined): boolean {
  return /the test stopped reading it: /.test(failure ?? '');
}
