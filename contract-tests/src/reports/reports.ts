import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Reporter, SuiteResult, TestResult } from '../runner/types.js';
import { relaxationLines } from '../runner/verdict.js';

const ICON: Record<TestResult['status'], string> = { passed: '✔', failed: '✘', skipped: '○' };

/** Clause coverage figures: covered (a passing test and no failing one) out of all clauses. */
export function clauseFigures(result: SuiteResult): {
  covered: number;
  total: number;
  testable: number;
  failed: number;
  skipped: number;
  uncovered: number;
} {
  const count = (state: string): number => result.clauses.filter((c) => c.state === state).length;
  return {
    covered: count('covered'),
    total: result.clauses.length,
    testable: result.clauses.filter((c) => !c.notShown).length,
    failed: count('failed'),
    skipped: count('skipped'),
    uncovered: count('uncovered'),
  };
}

/** Operations exercised, and documented statuses seen. */
export function operationFigures(result: SuiteResult): {
  exercised: number;
  total: number;
  statusesSeen: number;
  statusesDocumented: number;
} {
  const exercised = result.operations.filter((o) => o.calls > 0).length;
  let seen = 0;
  let documented = 0;
  for (const op of result.operations) {
    for (const status of op.documentedStatuses) {
      documented += 1;
      if (Object.keys(op.seenStatuses).some((s) => s === status || (status.endsWith('XX') && s[0] === status[0])))
        seen += 1;
    }
  }
  return { exercised, total: result.operations.length, statusesSeen: seen, statusesDocumented: documented };
}

/** The curl reproducers of a failed test as text (empty when it has none). */
function reproducerText(r: TestResult, indent: string): string {
  if (!r.reproducers?.length) return '';
  return `\n${indent}reproduce with curl (RESTOAPI_TOKEN: a session token of the same role):\n${r.reproducers.map((c) => `${indent}  ${c}`).join('\n')}`;
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
  const clauses = clauseFigures(result);
  const ops = operationFigures(result);
  const decided = result.decisions.filter((d) => d.tests.some((t) => t.status === 'passed')).length;
  lines.push(
    '',
    `RestoAPI contract suite: profile ${result.profile}, selection ${result.selection}, seed ${result.seed}${result.shard ? `, shard ${result.shard.index}/${result.shard.total}` : ''}`,
    `  target      ${result.baseUrl} (carrier API ${result.carrierBaseUrl})`,
    `  tests       ${result.summary.passed} passed, ${result.summary.failed} failed, ${result.summary.skipped} skipped of ${result.summary.total}${result.summary.warnings ? `, ${result.summary.warnings} warnings` : ''}`,
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
  return text
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
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
      ];
      const inner = [
        `<properties>${props.join('')}</properties>`,
        r.status === 'failed'
          ? `<failure message="${xml((r.failure ?? '').split('\n')[0] ?? '')}">${xml(`${r.failure ?? ''}${reproducerText(r, '')}`)}</failure>`
          : '',
        r.status === 'skipped' ? `<skipped message="${xml(r.skipReason ?? '')}"/>` : '',
        r.warnings.length ? `<system-out>${xml(r.warnings.join('\n'))}</system-out>` : '',
      ].join('');
      return `    <testcase classname="restoapi.contract.${kind}" name="${xml(`${r.id}: ${r.title}`)}" time="${(r.durationMs / 1000).toFixed(3)}">${inner}</testcase>`;
    });
    const failures = tests.filter((r) => r.status === 'failed').length;
    const skipped = tests.filter((r) => r.status === 'skipped').length;
    const time = tests.reduce((s, r) => s + r.durationMs, 0) / 1000;
    // What the configuration did not check, on every suite, so a green CI report says it too.
    const relaxed = (result.relaxations ?? []).map(
      (r) => `<property name="relaxed" value="${xml(relaxationLines([r])[0]!)}"/>`,
    );
    const suiteProps = relaxed.length ? `    <properties>${relaxed.join('')}</properties>\n` : '';
    return `  <testsuite name="restoapi-contract ${kind}" tests="${tests.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time.toFixed(3)}" timestamp="${result.startedAt}">\n${suiteProps}${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="restoapi-contract" tests="${result.summary.total}" failures="${result.summary.failed}" skipped="${result.summary.skipped}" time="${(result.durationMs / 1000).toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
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
      `| \`${r.id}\` ${md(r.title)} | ${r.profile} | ${ICON[r.status]} ${r.status}${r.skipReason ? `: ${md(r.skipReason)}` : ''}${r.failure ? `: ${md(r.failure.split('\n')[0] ?? '')}` : ''} | ${r.durationMs} ms |`,
    );
  return `${out.join('\n')}\n`;
}

function html(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/** The traceability matrix as one self-contained HTML page. */
export function matrixHtml(result: SuiteResult): string {
  const clauses = clauseFigures(result);
  const ops = operationFigures(result);
  const rows = result.clauses
    .map((c) => {
      const tests = c.tests.map((t) => `<span class="${t.status}">${ICON[t.status]} ${html(t.id)}</span>`).join('<br>');
      return `<tr class="${c.state}"><td><b>${html(c.id)}</b><div class="text">${html(c.text)}</div></td><td>${STATE_LABEL[c.state]}${c.notShown ? ' (not shown)' : ''}</td><td>${tests || '—'}</td></tr>`;
    })
    .join('\n');
  const opRows = result.operations
    .map((op) => {
      const documented = op.documentedStatuses
        .map((s) =>
          Object.keys(op.seenStatuses).some((x) => x === s || (s.endsWith('XX') && x[0] === s[0]))
            ? `<b class="passed">${s}</b>`
            : `<span class="missing">${s}</span>`,
        )
        .join(' ');
      return `<tr><td><code>${html(op.operationId)}</code></td><td>${op.method} <code>${html(op.route)}</code></td><td>${op.calls}</td><td>${documented}</td><td>${html(JSON.stringify(op.seenStatuses))}</td></tr>`;
    })
    .join('\n');
  const testRows = result.results
    .map(
      (r) =>
        `<tr class="${r.status}"><td><code>${html(r.id)}</code><div class="text">${html(r.title)}</div></td><td>${r.profile}</td><td>${ICON[r.status]} ${r.status}<pre>${html(r.failure ?? r.skipReason ?? '')}</pre>${r.reproducers?.length ? `<div class="curl">reproduce with curl (RESTOAPI_TOKEN: a session token of the same role):<pre>${html(r.reproducers.join('\n'))}</pre></div>` : ''}</td><td>${r.durationMs} ms</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>RestoAPI contract traceability matrix</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse;width:100%;margin:1rem 0}td,th{border:1px solid #ddd;padding:.35rem .5rem;vertical-align:top;text-align:left}
th{background:#f4f4f4}.text{color:#666;font-size:12px}tr.failed td:nth-child(2),.failed{color:#b00020}tr.uncovered td:nth-child(2){color:#a60}.passed{color:#176f2c}.skipped{color:#777}
.missing{color:#999}pre{white-space:pre-wrap;font-size:11px;margin:.25rem 0 0;max-height:12rem;overflow:auto}.figures li{margin:.2rem 0}
</style></head><body>
<h1>RestoAPI contract traceability matrix</h1>
<p>Target <code>${html(result.baseUrl)}</code>, profile <b>${result.profile}</b>, selection <code>${html(result.selection)}</code>, seed <code>${result.seed}</code>, ${result.startedAt}, ${(result.durationMs / 1000).toFixed(1)} s.</p>
<ul class="figures">
<li>Tests: ${result.summary.passed} passed, ${result.summary.failed} failed, ${result.summary.skipped} skipped of ${result.summary.total}</li>
<li>Clauses: <b>${clauses.covered} / ${clauses.total} covered</b>, ${clauses.failed} failing, ${clauses.skipped} only skipped, ${clauses.uncovered} without a test</li>
<li>Operations: ${ops.exercised} / ${ops.total} exercised; documented statuses seen ${ops.statusesSeen} / ${ops.statusesDocumented}</li>
<li>Relaxed by the configuration: ${html(relaxationLines(result.relaxations).join('; ') || 'nothing (every check and decision was checked)')}</li>
</ul>
<h2>Clauses</h2><table><tr><th>Clause</th><th>State</th><th>Tests</th></tr>
${rows}
</table>
<h2>Operations and status codes</h2><table><tr><th>Operation</th><th>Route</th><th>Calls</th><th>Documented statuses (seen in bold)</th><th>Seen</th></tr>
${opRows}
</table>
<h2>Tests</h2><table><tr><th>Test</th><th>Profile</th><th>Result</th><th>Time</th></tr>
${testRows}
</table>
</body></html>
`;
}

/** Prints progress and the summary to the console. */
export function consoleReporter(options: { verbose?: boolean; write?: (text: string) => void } = {}): Reporter {
  const write = options.write ?? ((text: string) => console.log(text));
  return {
    onTestEnd(r) {
      if (options.verbose || r.status === 'failed')
        write(`${ICON[r.status]} ${r.id} (${r.durationMs} ms)${r.status === 'skipped' ? ` — ${r.skipReason}` : ''}`);
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
