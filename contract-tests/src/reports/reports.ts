import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Reporter, SuiteResult, TestResult } from '../runner/types.js';
import { relaxationLines } from '../runner/verdict.js';
import { clauseFigures, operationFigures } from './figures.js';
import { matrixHtml, REPRODUCE_HEADING } from './html-report.js';

export { clauseFigures, operationFigures } from './figures.js';
export { matrixHtml } from './html-report.js';
export { progressReporter, type ProgressOptions, type ProgressReporter, type ProgressStream } from './progress.js';

const ICON: Record<TestResult['status'], string> = { passed: '✔', failed: '✘', skipped: '○', incomplete: '◔' };

/** The curl reproducers of a failed test as text (empty when it has none). */
function reproducerText(r: TestResult, indent: string): string {
  if (!r.reproducers?.length) return '';
  return `\n${indent}${REPRODUCE_HEADING}\n${r.reproducers.map((c) => `${indent}  ${c}`).join('\n')}`;
}

/** The console summary (also what the CLI prints). */
export function consoleSummary(result: SuiteResult): string {
  const lines: string[] = [];
  const failed = result.results.filter((r) => r.status === 'failed');
  for (const r of failed)
    lines.push(
      `\n✘ ${r.id}: ${r.title}\n  clauses: ${r.clauses.slice(0, 6).join(' | ')}${r.clauses.length > 6 ? ' …' : ''}\n  ${(r.failure ?? '').split('\n').join('\n  ')}${reproducerText(r, '  ')}`,
    );
  const skipped = result.results.filter((r) => r.status === 'skipped');
  if (skipped.length) {
    lines.push('\nskipped:');
    for (const r of skipped) lines.push(`  ○ ${r.id}: ${r.skipReason}`);
  }
  const incomplete = result.results.filter((r) => r.status === 'incomplete');
  if (incomplete.length) {
    lines.push('\nincomplete (the service answered too slowly for the budget; nothing failed):');
    for (const r of incomplete) lines.push(`  ◔ ${r.id}: ${r.incompleteReason}`);
  }
  const clauses = clauseFigures(result);
  const ops = operationFigures(result);
  const decided = result.decisions.filter((d) => d.tests.some((t) => t.status === 'passed')).length;
  lines.push(
    '',
    `RestoAPI contract suite: profile ${result.profile}, selection ${result.selection}, seed ${result.seed}${result.shard ? `, shard ${result.shard.index}/${result.shard.total}` : ''}`,
    `  target      ${result.baseUrl} (carrier API ${result.carrierBaseUrl})`,
    `  tests       ${result.summary.passed} passed, ${result.summary.failed} failed, ${result.summary.skipped} skipped${result.summary.incomplete ? `, ${result.summary.incomplete} incomplete` : ''} of ${result.summary.total}${result.summary.warnings ? `, ${result.summary.warnings} warnings` : ''}`,
    ...decisionWarningLines(result),
    ...relaxationLines(result.relaxations).map((line, i) => `${i === 0 ? '  relaxed     ' : '              '}${line}`),
    `  clauses     ${clauses.covered}/${clauses.total} covered (${clauses.failed} failing, ${clauses.skipped} only skipped, ${clauses.uncovered} without a test; ${clauses.total - clauses.testable} say only "not shown")`,
    `  operations  ${ops.exercised}/${ops.total} exercised; ${ops.statusesSeen}/${ops.statusesDocumented} documented statuses seen`,
    ...(result.profile === 'full'
      ? [`  decisions   ${decided}/${result.decisions.length} x-decision markers checked by a passing test`]
      : []),
    `  time        ${(result.durationMs / 1000).toFixed(1)} s`,
    `  reproduce   --seed ${result.seed}`,
    result.ok ? 'RESULT: PASS' : 'RESULT: FAIL',
  );
  return lines.join('\n');
}

/** The decision warnings of a run, one line per decision (most frequent first), for the console summary. */
function decisionWarningLines(result: SuiteResult): string[] {
  const groups = result.warningsByDecision ?? [];
  if (groups.length === 0) return [];
  return [
    `  decided     ${groups.reduce((n, g) => n + g.count, 0)} departures from ${groups.length} decisions of the document (warnings; openapi/DECISIONS.md):`,
    ...groups.map((g) => `    ×${g.count} ${g.decision} — ${g.summary}`),
  ];
}

function xml(text: string): string {
  return (
    text
      .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
      // XML 1.0 cannot carry these control characters at all, not even escaped.
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
  );
}

/** JUnit XML: one testsuite per test kind, one testcase per test (clauses and profile as properties). */
export function junitXml(result: SuiteResult): string {
  const kinds = [...new Set(result.results.map((r) => r.kind))];
  const suites = kinds.map((kind) => {
    const tests = result.results.filter((r) => r.kind === kind);
    const cases = tests.map((r) => {
      const props = [
        `<property name="profile" value="${r.profile}"/>`,
        ...r.clauses.map((c) => `<property name="clause" value="${xml(c)}"/>`),
        ...r.decisions.map((d) => `<property name="decision" value="${xml(d)}"/>`),
        // A warned test stays green; its count is a property, the warnings themselves its output (shown by CI tools).
        ...(r.warnings.length ? [`<property name="warnings" value="${r.warnings.length}"/>`] : []),
      ];
      const inner = [
        `<properties>${props.join('')}</properties>`,
        r.status === 'failed'
          ? `<failure message="${xml((r.failure ?? '').split('\n')[0] ?? '')}">${xml(`${r.failure ?? ''}${reproducerText(r, '')}`)}</failure>`
          : '',
        r.status === 'skipped' ? `<skipped message="${xml(r.skipReason ?? '')}"/>` : '',
        r.status === 'incomplete' ? `<skipped message="${xml(`incomplete: ${r.incompleteReason ?? ''}`)}"/>` : '',
        r.warnings.length ? `<system-out>${xml(r.warnings.map((w) => `warning: ${w}`).join('\n'))}</system-out>` : '',
      ].join('');
      return `    <testcase classname="restoapi.contract.${kind}" name="${xml(`${r.id}: ${r.title}`)}" time="${(r.durationMs / 1000).toFixed(3)}">${inner}</testcase>`;
    });
    const failures = tests.filter((r) => r.status === 'failed').length;
    const skipped = tests.filter((r) => r.status === 'skipped' || r.status === 'incomplete').length;
    const time = tests.reduce((s, r) => s + r.durationMs, 0) / 1000;
    const warnings = tests.reduce((n, r) => n + r.warnings.length, 0);
    // What the configuration did not check, on every suite, so a green CI report says it too.
    const relaxed = (result.relaxations ?? []).map(
      (r) => `<property name="relaxed" value="${xml(relaxationLines([r])[0]!)}"/>`,
    );
    const suiteProps = `    <properties><property name="profile" value="${result.profile}"/><property name="warnings" value="${warnings}"/>${relaxed.join('')}</properties>\n`;
    return `  <testsuite name="restoapi-contract ${kind}" tests="${tests.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time.toFixed(3)}" timestamp="${result.startedAt}">\n${suiteProps}${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="restoapi-contract" tests="${result.summary.total}" failures="${result.summary.failed}" skipped="${result.summary.skipped + (result.summary.incomplete ?? 0)}" time="${(result.durationMs / 1000).toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
}

const STATE_LABEL: Record<string, string> = {
  covered: '✔ covered',
  failed: '✘ failed',
  skipped: '○ skipped',
  uncovered: '— no test',
};

function md(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The traceability matrix in Markdown: clause → tests → results, then uncovered clauses, operations and statuses. */
export function matrixMarkdown(result: SuiteResult): string {
  const clauses = clauseFigures(result);
  const ops = operationFigures(result);
  const out: string[] = [
    '# RestoAPI contract traceability matrix',
    '',
    `Target \`${result.baseUrl}\`, profile **${result.profile}**, selection \`${result.selection}\`, seed \`${result.seed}\`, ${result.startedAt}.`,
    '',
    `- Tests: ${result.summary.passed} passed, ${result.summary.failed} failed, ${result.summary.skipped} skipped of ${result.summary.total}.`,
    `- Clauses: **${clauses.covered} / ${clauses.total} covered**; ${clauses.failed} failing; ${clauses.skipped} only skipped; ${clauses.uncovered} without a test (${clauses.total - clauses.testable} of the clauses only say "not shown").`,
    `- Operations: ${ops.exercised} / ${ops.total} exercised; documented statuses seen: ${ops.statusesSeen} / ${ops.statusesDocumented}.`,
    `- Relaxed by the configuration: ${relaxationLines(result.relaxations).join('; ') || 'nothing (every check and decision was checked)'}.`,
    ...((result.warningsByDecision ?? []).length
      ? [
          '',
          '## Warnings by decision',
          '',
          '| Decision | Warnings | Tests | Example |',
          '|---|---|---|---|',
          ...(result.warningsByDecision ?? []).map(
            (g) =>
              `| \`${md(g.decision)}\` (openapi/${g.entry}) ${md(g.summary)} | ${g.count} | ${g.tests.map((id) => `\`${id}\``).join(' ')} | ${md(g.examples[0] ?? '')} |`,
          ),
        ]
      : []),
    '',
    '## Clauses',
    '',
    '| Clause | State | Tests |',
    '|---|---|---|',
  ];
  for (const clause of result.clauses) {
    const tests = clause.tests.map((t) => `${ICON[t.status]} \`${t.id}\``).join('<br>');
    out.push(
      `| **${md(clause.id)}**<br><small>${md(clause.text).slice(0, 160)}</small> | ${STATE_LABEL[clause.state]}${clause.notShown ? ' (not shown)' : ''} | ${tests || '—'} |`,
    );
  }
  const uncovered = result.clauses.filter((c) => c.state === 'uncovered');
  out.push('', '## Uncovered clauses', '');
  if (uncovered.length === 0) out.push('None.');
  for (const clause of uncovered)
    out.push(`- **${clause.id}**${clause.notShown ? ' (only says "not shown": nothing to test)' : ''}: ${clause.text}`);
  out.push(
    '',
    '## Operations and status codes',
    '',
    '| Operation | Route | Calls | Documented statuses (seen ✔) | Other statuses seen |',
    '|---|---|---|---|---|',
  );
  for (const op of result.operations) {
    const documented = op.documentedStatuses.map((s) => {
      const seen = Object.keys(op.seenStatuses).some((x) => x === s || (s.endsWith('XX') && x[0] === s[0]));
      return seen ? `**${s}** ✔` : s;
    });
    const other = Object.entries(op.seenStatuses).filter(
      ([s]) => !op.documentedStatuses.some((d) => d === s || (d.endsWith('XX') && d[0] === s[0])),
    );
    out.push(
      `| \`${op.operationId}\` | ${op.method} \`${op.route}\` | ${op.calls} | ${documented.join(', ')} | ${other.map(([s, n]) => `${s}×${n}`).join(', ') || '—'} |`,
    );
  }
  if (result.profile === 'full') {
    out.push('', '## Decisions (x-decision markers)', '', '| Decision | Tests |', '|---|---|');
    for (const d of result.decisions)
      out.push(
        `| ${md(d.where)} <small>\`${md(d.pointer)}\`</small> | ${d.tests.map((t) => `${ICON[t.status]} \`${t.id}\``).join('<br>') || '—'} |`,
      );
  }
  out.push('', '## Tests', '', '| Test | Profile | Result | Time |', '|---|---|---|---|');
  for (const r of result.results)
    out.push(
      `| \`${r.id}\` ${md(r.title)} | ${r.profile} | ${ICON[r.status]} ${r.status}${r.skipReason ? `: ${md(r.skipReason)}` : ''}${r.incompleteReason ? `: ${md(r.incompleteReason)}` : ''}${r.failure ? `: ${md(r.failure.split('\n')[0] ?? '')}` : ''} | ${r.durationMs} ms |`,
    );
  return `${out.join('\n')}\n`;
}

/** Prints progress and the summary to the console. */
export function consoleReporter(options: { verbose?: boolean; write?: (text: string) => void } = {}): Reporter {
  const write = options.write ?? ((text: string) => console.log(text));
  return {
    onTestEnd(r) {
      if (options.verbose || r.status === 'failed' || r.status === 'incomplete')
        write(
          `${ICON[r.status]} ${r.id} (${r.durationMs} ms)${r.status === 'skipped' ? ` — ${r.skipReason}` : ''}${r.status === 'incomplete' ? ` — incomplete: ${r.incompleteReason}` : ''}`,
        );
    },
    onEnd(result) {
      write(consoleSummary(result));
    },
  };
}

/** Writes junit.xml, traceability.md, traceability.html and result.json to a directory. */
export function fileReporter(dir: string): Reporter {
  return {
    async onEnd(result) {
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, 'junit.xml'), junitXml(result));
      await writeFile(path.join(dir, 'traceability.md'), matrixMarkdown(result));
      await writeFile(path.join(dir, 'traceability.html'), matrixHtml(result));
      await writeFile(path.join(dir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
    },
  };
}
