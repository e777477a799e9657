import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { allTests } from '../tests/index.js';
import { groupWarningsByDecision, tally, traceability } from '../runner/run.js';
import type { OperationCoverage, SuiteResult } from '../runner/types.js';

/** A merge that cannot be made: a missing or unreadable result, or results of different runs. */
export class MergeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MergeError';
  }
}

function sameRun(results: SuiteResult[]): void {
  const first = results[0]!;
  for (const result of results.slice(1)) {
    for (const key of ['profile', 'seed', 'baseUrl', 'selection'] as const)
      if (result[key] !== first[key])
        throw new MergeError(
          `the results come from different runs: ${key} ${JSON.stringify(first[key])} and ${JSON.stringify(result[key])}`,
        );
  }
}

function mergeOperations(results: SuiteResult[]): OperationCoverage[] {
  const merged = new Map<string, OperationCoverage>();
  for (const result of results)
    for (const op of result.operations) {
      const into = merged.get(op.operationId) ?? { ...op, calls: 0, seenStatuses: {} };
      into.calls += op.calls;
      for (const [status, n] of Object.entries(op.seenStatuses))
        into.seenStatuses[status] = (into.seenStatuses[status] ?? 0) + n;
      merged.set(op.operationId, into);
    }
  return [...merged.values()];
}

/**
 * Merges the results of the shards of one run (`--shard k/n`) into one result:
 * every test once, in the suite's order, coverage summed, clauses re-traced.
 */
export function mergeResults(results: SuiteResult[]): SuiteResult {
  if (results.length === 0) throw new MergeError('nothing to merge: no result given');
  sameRun(results);
  const seen = new Map<string, number>();
  results.forEach((result, i) =>
    result.results.forEach((r) => {
      if (seen.has(r.id))
        throw new MergeError(
          `test ${r.id} is in two results (${seen.get(r.id)! + 1} and ${i + 1}): the shards overlap`,
        );
      seen.set(r.id, i);
    }),
  );
  const order = new Map(allTests().map((test, i) => [test.id, i]));
  const tests = results
    .flatMap((r) => r.results)
    .sort((a, b) => (order.get(a.id) ?? Infinity) - (order.get(b.id) ?? Infinity));
  const shards = results.map((r) => r.shard).filter((s) => s !== undefined);
  const total = shards[0]?.total;
  if (total !== undefined && shards.length === total && new Set(shards.map((s) => s.index)).size < total)
    throw new MergeError('two results are the same shard');
  const first = results[0]!;
  const startedAt = results.map((r) => r.startedAt).sort()[0]!;
  return {
    baseUrl: first.baseUrl,
    carrierBaseUrl: first.carrierBaseUrl,
    profile: first.profile,
    selection: first.selection,
    seed: first.seed,
    startedAt,
    // Shards run side by side: the merged run takes as long as its slowest shard.
    durationMs: Math.max(...results.map((r) => r.durationMs)),
    results: tests,
    ...tally(tests),
    operations: mergeOperations(results),
    ...traceability(tests),
    warningsByDecision: groupWarningsByDecision(tests),
    // Shards share one configuration: the same relaxations, each letting pass the problems of every shard.
    relaxations: (first.relaxations ?? []).map((relaxation) => ({
      ...relaxation,
      ignored: results.reduce(
        (n, r) =>
          n + (r.relaxations?.find((x) => x.kind === relaxation.kind && x.target === relaxation.target)?.ignored ?? 0),
        0,
      ),
    })),
  };
}

/** Reads `result.json` from each directory (or a result file given directly) and merges them. */
export async function mergeResultDirs(dirs: string[]): Promise<SuiteResult> {
  const results: SuiteResult[] = [];
  for (const dir of dirs) {
    const file = dir.endsWith('.json') ? dir : path.join(dir, 'result.json');
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new MergeError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    let parsed: SuiteResult;
    try {
      parsed = JSON.parse(text) as SuiteResult;
    } catch (error) {
      throw new MergeError(`${file} is not JSON: ${(error as Error).message}`);
    }
    if (!Array.isArray(parsed?.results) || !Array.isArray(parsed?.operations))
      throw new MergeError(`${file} is not a result.json of restoapi-contract (no results or operations)`);
    results.push(parsed);
  }
  return mergeResults(results);
}
