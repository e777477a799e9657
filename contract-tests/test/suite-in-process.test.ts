import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { clauseFigures, consoleSummary, fileReporter, runContractSuite } from '../src/index.js';
import { IN_PROCESS_URL, KNOWN_DEFECTS, MOCK_CONFIG, unexpectedFailures } from './helpers.js';

// The suite serves the remote photos of its import test on loopback: this mock is told to fetch them.
const mock = createMock({ outboundPolicy: { photos: { mode: 'any', allowHosts: [] } } });
afterAll(() => mock.close());

test('the full profile passes against the in-process mock, with every clause and operation covered', async () => {
  const reports = mkdtempSync(path.join(tmpdir(), 'restoapi-contract-'));
  const started = Date.now();
  const result = await runContractSuite({
    baseUrl: IN_PROCESS_URL,
    fetch: mock.fetch,
    config: MOCK_CONFIG,
    profile: 'full',
    reporters: [fileReporter(reports)],
  });
  const seconds = (Date.now() - started) / 1000;
  const summary = consoleSummary(result);
  console.log(
    `${summary.slice(summary.lastIndexOf('RestoAPI contract suite'))}\nfull profile in-process: ${seconds.toFixed(1)} s`,
  );
  expect(unexpectedFailures(result)).toEqual([]);
  const known = result.results
    .filter((r) => r.status === 'failed')
    .map((r) => `${r.id} [${KNOWN_DEFECTS[r.id]!.owner}] ${KNOWN_DEFECTS[r.id]!.defect}`);
  if (known.length) console.log(`known defects of the mock and the document (reported):\n  ${known.join('\n  ')}`);
  expect(result.results.filter((r) => r.status === 'skipped').map((r) => `${r.id}: ${r.skipReason}`)).toEqual([]);
  expect(result.operations.filter((o) => o.calls === 0).map((o) => o.operationId)).toEqual([]);
  const clauses = clauseFigures(result);
  expect(clauses.uncovered).toBe(clauses.total - clauses.testable);
  expect(readFileSync(path.join(reports, 'junit.xml'), 'utf8')).toContain('<testsuites name="restoapi-contract"');
  expect(readFileSync(path.join(reports, 'traceability.md'), 'utf8')).toContain('| **Limits 1**');
  expect(readFileSync(path.join(reports, 'traceability.html'), 'utf8')).toContain('Limits 1');
}, 120_000);

test('the spec profile runs the spec-tagged tests only and passes against the mock', async () => {
  const result = await runContractSuite({
    baseUrl: IN_PROCESS_URL,
    fetch: mock.fetch,
    config: MOCK_CONFIG,
    profile: 'spec',
    seed: 7,
  });
  expect(result.results.every((r) => r.profile === 'spec')).toBe(true);
  expect(unexpectedFailures(result)).toEqual([]);
  expect(result.seed).toBe(7);
}, 120_000);
