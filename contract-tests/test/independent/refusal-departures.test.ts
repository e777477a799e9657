import { afterAll, expect, test } from 'vitest';
import { FAMILY_DEPARTURES } from '../../../scripts/testing/independent-service.js';
import { fullRunOnly } from '../../../scripts/testing/test-mode.js';
import type { SuiteResult } from '../../src/index.js';
import { probeRun } from './probe-run.js';

// The generated refusal departures (issue 36, the request side): a service that lets through what a decision of
// the document refuses (an unknown field of a decided body, a value outside a decided list of a query
// parameter) is correct, since the spec does not state the refusal. So `spec` gives it 0 failures, and `full`
// fails it naming that decision. Only two things can show such a departure: a request carrying an unknown field
// or an undocumented value (the decided negative tests of `full` send one per decision, whatever the seed), and
// every test of the operations it touches under `spec` (which must send none that matter). So the check is
// cheap and still whole: one `spec` run with every refusal departure at once over the operations they touch,
// and for each departure alone a `full` run of the decided negative tests of its operations.

const NAMES = Object.keys(FAMILY_DEPARTURES).filter((name) => FAMILY_DEPARTURES[name]!.family === 'refusal');
/**
 * npm test's sample: a category's create body under both profiles, against the negative tests of its operation
 * only (the tests that send invalid requests; about a second). The full run gives `spec` every test.
 */
const SAMPLE = 'lenient:DraftCategoryCreate';

const lines: string[] = [];

/** The suite against the service with `families` on: every test of `operations`, or only their negative tests (the profile's own). */
function run(
  families: readonly string[],
  profile: 'spec' | 'full',
  operations: readonly string[],
  negativeOnly = false,
): Promise<SuiteResult> {
  const prefix = profile === 'spec' ? 'negative' : 'negative-decided';
  const ids = negativeOnly ? operations.map((op) => `${prefix}.${op}`) : undefined;
  return probeRun({ departures: [], families }, operations, profile, ids);
}

function failures(result: SuiteResult): string[] {
  return result.results.filter((r) => r.status === 'failed').map((r) => `${r.id}: ${r.failure}`);
}

test('the refusal family is generated from the document: every marker that refuses an unknown field or value has one', () => {
  expect(NAMES.length).toBeGreaterThan(10);
  expect(NAMES).toContain(SAMPLE);
  for (const name of NAMES) expect(FAMILY_DEPARTURES[name]!.probe.length, name).toBeGreaterThan(0);
});

test(`${SAMPLE} alone: spec passes the negative tests of its operations, full fails naming its decision`, async () => {
  const departure = FAMILY_DEPARTURES[SAMPLE]!;
  const spec = await run([SAMPLE], 'spec', departure.probe, true);
  expect(failures(spec)).toEqual([]);
  const full = await run([SAMPLE], 'full', departure.probe, true);
  const naming = failures(full).filter((f) => f.includes(departure.decision));
  expect(naming.length, `full does not fail naming ${departure.decision}`).toBeGreaterThan(0);
  lines.push(
    `${SAMPLE}: spec 0 failed of ${spec.summary.total}; full ${failures(full).length} failed of ${full.summary.total}, ${naming.length} naming the decision`,
  );
}, 120_000);

fullRunOnly(
  'every refusal departure at once: spec gives 0 failures over every test of the operations they touch',
  `npm test tries ${SAMPLE}`,
)(async () => {
  const operations = [...new Set(NAMES.flatMap((name) => FAMILY_DEPARTURES[name]!.probe))];
  const spec = await run(NAMES, 'spec', operations);
  expect(failures(spec)).toEqual([]);
  lines.push(`all ${NAMES.length} at once: spec 0 failed of ${spec.summary.total} (${spec.summary.skipped} skipped)`);
}, 600_000);

for (const name of NAMES.filter((n) => n !== SAMPLE)) {
  const departure = FAMILY_DEPARTURES[name]!;
  fullRunOnly(
    `${name} alone: full fails the decided negative tests of ${departure.probe.join(', ')}, naming ${departure.decision}`,
    `npm test tries ${SAMPLE}`,
  )(async () => {
    const full = await run([name], 'full', departure.probe, true);
    const naming = failures(full).filter((f) => f.includes(departure.decision));
    expect(
      naming.length,
      `full does not fail naming ${departure.decision}: ${failures(full).join('\n')}`,
    ).toBeGreaterThan(0);
    lines.push(
      `${name}: full ${failures(full).length} failed of ${full.summary.total}, ${naming.length} naming the decision`,
    );
  }, 300_000);
}

afterAll(() => {
  if (lines.length) console.log(lines.join('\n'));
});
