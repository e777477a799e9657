import { readFileSync } from 'node:fs';
import type { ContractConfig, SuiteResult } from '../src/index.js';

/** The configuration for the mock's demo world. */
export const MOCK_CONFIG = JSON.parse(
  readFileSync(new URL('../config/mock.json', import.meta.url), 'utf8'),
) as ContractConfig;

/** Base URL of an in-process mock (never resolved: requests go through `mock.fetch`). */
export const IN_PROCESS_URL = 'http://mock.local';

/**
 * Failures the suite finds in the current mock and document, reported to
 * their owners (packages/mock-server and openapi/). Each entry names the
 * defect; the in-repo runs assert that nothing else fails, and that each of
 * these still fails for the reason given (so a fix shows up here).
 */
export const KNOWN_DEFECTS: Record<string, { owner: 'mock-server' | 'openapi'; defect: string; match: RegExp }> = {};

/** Failures not explained by a known defect (with the reason it was not matched). */
export function unexpectedFailures(result: SuiteResult): string[] {
  return result.results
    .filter((r) => r.status === 'failed')
    .filter((r) => {
      const known = KNOWN_DEFECTS[r.id];
      return !known || !known.match.test(r.failure ?? '');
    })
    .map((r) => `${r.id}: ${r.failure}`);
}

/** A fetch that sends every request to a `Request → Response` function. */
export function fetchOf(handle: (request: Request) => Promise<Response>): typeof fetch {
  return ((input: RequestInfo | URL, init?: RequestInit) => handle(new Request(input, init))) as typeof fetch;
}
