import { afterAll, expect, test } from 'vitest';
import { FAMILY_DEPARTURES, type FamilyDeparture } from '../../../scripts/testing/independent-service.js';
import { fullRunOnly } from '../../../scripts/testing/test-mode.js';
import type { SuiteResult } from '../../src/index.js';
import { probeRun } from './probe-run.js';

// Two generated families of departures (issue 36), checked as cheaply as is still whole:
// - `lenient:<marker>` (the request side): the service lets through what a decision refuses (an unknown field of
//   a decided body, a value outside a decided list of a query parameter). Only a request carrying one shows it:
//   the decided negative tests of `full` send one per decision and kind, whatever the seed.
// - `answer:<marker>`: a decided record or value of the answers written another way. Every answer check names
//   it; the departure's `shows` is the cheapest test of `full` that fails naming it.
// `spec` must give 0 failures (and warn naming the decision, unless the departure says why it cannot): one run
// with every departure of a family at once, over every test of the operations they touch (a departure of one
// family cannot hide another's failure: each changes its own fields). `full` must fail naming the decision: for
// each departure alone, the tests that show it.

const FAMILIES = ['refusal', 'answer value'] as const;
const NAMES = Object.keys(FAMILY_DEPARTURES).filter((name) =>
  (FAMILIES as readonly string[]).includes(FAMILY_DEPARTURES[name]!.family),
);
/**
 * npm test's sample, one of each family, each against its cheapest tests (about a second each): a category's
 * create body (the negative tests of its operation under `spec`) and a buddy's total.
 */
const SAMPLE = ['lenient:DraftCategoryCreate', 'answer:Buddy'];

const lines: string[] = [];

/** The tests of `full` that show a departure. */
function showing(departure: FamilyDeparture): string[] {
  return departure.shows ? [departure.shows] : departure.probe.map((op) => `negative-decided.${op}`);
}

function failures(result: SuiteResult): string[] {
  return result.results.filter((r) => r.status === 'failed').map((r) => `${r.id}: ${r.failure}`);
}

/** `full` against the departure alone fails the tests that show it, naming its decision. */
async function fullFailsNaming(name: string): Promise<string> {
  const departure = FAMILY_DEPARTURES[name]!;
  const full = await probeRun({ departures: [], families: [name] }, departure.probe, 'full', showing(departure));
  // A failure names it in its text, or is of a decided test that names it among the decisions it checks.
  const naming = full.results.filter(
    (r) =>
      r.status === 'failed' && (r.failure?.includes(departure.decision) || r.decisions.includes(departure.decision)),
  );
  expect(
    naming.length,
    `full does not fail naming ${departure.decision}: ${failures(full).join('\n')}`,
  ).toBeGreaterThan(0);
  return `full ${failures(full).length} failed of ${full.summary.total}, ${naming.length} naming the decision`;
}

/** `spec` against `names` at once gives 0 failures and warns naming each decision (unless it cannot). */
function specPasses(result: SuiteResult, names: readonly string[]): void {
  expect(failures(result)).toEqual([]);
  const warned = new Set(result.warningsByDecision.map((group) => group.decision));
  const silent = names.filter((name) => {
    const departure = FAMILY_DEPARTURES[name]!;
    return !departure.silentUnderSpec && !warned.has(departure.decision);
  });
  expect(silent, 'no warning names their decisions').toEqual([]);
}

test('the families are generated from the document: each departure has its operations and its decision', () => {
  expect(NAMES.filter((name) => name.startsWith('lenient:')).length).toBeGreaterThan(10);
  for (const name of SAMPLE) expect(NAMES).toContain(name);
  for (const name of NAMES) expect(FAMILY_DEPARTURES[name]!.probe.length, name).toBeGreaterThan(0);
});

for (const name of SAMPLE) {
  test(`${name} alone (npm test's sample): spec passes its cheapest tests warning as it should, full fails naming its decision`, async () => {
    const departure = FAMILY_DEPARTURES[name]!;
    const ids = departure.family === 'refusal' ? departure.probe.map((op) => `negative.${op}`) : undefined;
    const spec = await probeRun({ departures: [], families: [name] }, departure.probe, 'spec', ids);
    specPasses(spec, [name]);
    lines.push(`${name}: spec 0 failed of ${spec.summary.total}; ${await fullFailsNaming(name)}`);
  }, 120_000);
}

for (const family of FAMILIES) {
  const names = NAMES.filter((name) => FAMILY_DEPARTURES[name]!.family === family);
  fullRunOnly(
    `every ${family} departure at once (${names.length}): spec gives 0 failures over every test of the operations they touch`,
    `npm test tries ${SAMPLE.join(', ')}`,
  )(async () => {
    const operations = [...new Set(names.flatMap((name) => FAMILY_DEPARTURES[name]!.probe))];
    const spec = await probeRun({ departures: [], families: names }, operations, 'spec');
    specPasses(spec, names);
    lines.push(
      `all ${names.length} ${family} at once: spec 0 failed of ${spec.summary.total} (${spec.summary.skipped} skipped)`,
    );
  }, 600_000);
}

for (const name of NAMES.filter((n) => !SAMPLE.includes(n))) {
  const departure = FAMILY_DEPARTURES[name]!;
  fullRunOnly(
    `${name} alone: full fails ${showing(departure).join(', ')}, naming ${departure.decision}`,
    `npm test tries ${SAMPLE.join(', ')}`,
  )(async () => {
    lines.push(`${name}: ${await fullFailsNaming(name)}`);
  }, 300_000);
}

afterAll(() => {
  if (lines.length) console.log(lines.join('\n'));
});
