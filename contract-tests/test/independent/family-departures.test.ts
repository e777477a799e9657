import { afterAll, expect, test } from 'vitest';
import { FAMILY_DEPARTURES } from '../../../scripts/testing/independent-service.js';
import { fullRunOnly } from '../../../scripts/testing/test-mode.js';
import type { SuiteResult } from '../../src/index.js';
import { PROBE_STATEFUL_RUNS, probeRun } from './probe-run.js';

// The generated departures (issue 36: the harness covers the decisions, not a sample of them): one mechanism
// per family, applied to every marker of its kind that no hand-made departure covers, read from the document's
// x-decision markers. Each alone, against the tests of the operations it touches: `spec` gives 0 failures and
// names its decision in a warning; `full` fails, naming it. npm test tries one of each family. Each alone runs the
// tour of each stateful machine (every write, then every view), as each-departure.test.ts does; the machines' 20
// sequences run once against every generated departure at once, under spec (the last test).

// The refusal and answer value families have their own, cheaper check (generated-departures.test.ts).
const NAMES = Object.keys(FAMILY_DEPARTURES).filter(
  (name) => !['refusal', 'answer value'].includes(FAMILY_DEPARTURES[name]!.family),
);
/** One of each family in npm test: the cheapest to run (a session's end, a wrong password). */
const SAMPLE = new Set(
  ['other-status:deleteSession', 'other-error:InvalidCredentials'].filter((n) => NAMES.includes(n)),
);

const lines: string[] = [];

function run(name: string, profile: 'spec' | 'full'): Promise<SuiteResult> {
  return probeRun({ departures: [], families: [name] }, FAMILY_DEPARTURES[name]!.probe, profile, undefined, {
    stateful: { runs: PROBE_STATEFUL_RUNS },
  });
}

for (const name of [...SAMPLE, ...NAMES.filter((n) => !SAMPLE.has(n))]) {
  const departure = FAMILY_DEPARTURES[name]!;
  const title = `${name} (${departure.family}) alone: spec passes, full fails naming ${departure.decision}`;
  const define = SAMPLE.has(name)
    ? (body: () => Promise<void>, timeout: number) => test(title, body, timeout)
    : fullRunOnly(title, `npm test tries one of each family: ${[...SAMPLE].join(', ')}`);
  define(async () => {
    const pointer = departure.decision;
    const spec = await run(name, 'spec');
    expect(spec.results.filter((r) => r.status === 'failed').map((r) => `${r.id}: ${r.failure}`)).toEqual([]);
    const warned = spec.warningsByDecision.filter((g) => g.decision === pointer);
    if (!departure.silentUnderSpec) expect(warned.length, `no warning names ${pointer}`).toBeGreaterThan(0);
    const full = await run(name, 'full');
    const failed = full.results.filter((r) => r.status === 'failed');
    const naming = failed.filter((r) => r.failure?.includes(pointer) || r.decisions.includes(pointer));
    expect(naming.length, `full does not fail naming ${pointer}`).toBeGreaterThan(0);
    lines.push(
      `${name}: spec 0 failed of ${spec.summary.total} (${spec.summary.skipped} skipped), ${warned[0]?.count ?? 0} warnings naming it; full ${failed.length} failed of ${full.summary.total}, ${naming.length} naming the decision`,
    );
  }, 1_200_000);
}

fullRunOnly(
  'every generated departure at once: spec passes the whole suite with 0 failures, the stateful machines their 20 sequences each',
  'the whole suite with every stateful sequence; npm test runs each family sample alone',
)(async () => {
  const every = [...new Set(NAMES.flatMap((name) => FAMILY_DEPARTURES[name]!.probe))];
  const spec = await probeRun({ departures: [], families: NAMES }, every, 'spec');
  expect(spec.results.filter((r) => r.status === 'failed').map((r) => `${r.id}: ${r.failure}`)).toEqual([]);
  expect(spec.results.filter((r) => r.kind === 'stateful' && r.status === 'passed').length).toBeGreaterThanOrEqual(6);
  lines.push(
    `every generated departure at once: spec 0 failed of ${spec.summary.total} (${spec.summary.skipped} skipped)`,
  );
}, 1_200_000);

afterAll(() => {
  if (lines.length) console.log(lines.join('\n'));
});
