/**
 * The HTML report, written for the person who reads it first thing in the morning: the verdict, then
 * each failure with its reason, its requests and answers and its curl reproducer, then the warnings
 * grouped by the decision they depart from, and only then coverage. Filters (failed, warned, skipped,
 * by clause, by operation) are inline JavaScript, so the page works opened from disk or a CI artifact.
 */
import type { SuiteResult, TestResult } from '../runner/types.js';
import { relaxationLines } from '../runner/verdict.js';
import { clauseFigures, operationFigures } from './figures.js';
import { warningGroups } from './warning-groups.js';

const ICON: Record<TestResult['status'], string> = { passed: '✔', failed: '✘', skipped: '○', incomplete: '◔' };

const STATE_LABEL: Record<string, string> = {
  covered: '✔ covered',
  failed: '✘ failed',
  skipped: '○ skipped',
  uncovered: '— no test',
};

/** The heading above the curl commands of a failure (the console and JUnit say the same). */
export const REPRODUCE_HEADING = 'reproduce with curl (RESTOAPI_TOKEN: a session token of the same role):';

function html(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The attributes the filters read: the test (its clauses and operations are in the page's index), status, warned. */
function testData(r: TestResult): string {
  return `data-id="${html(r.id)}" data-status="${r.status}" data-warned="${r.warnings.length > 0 ? 1 : 0}"`;
}

/** Clauses and operations of the run's tests, and per test their positions in those lists: one copy each. */
function filterIndex(result: SuiteResult): {
  clauses: string[];
  ops: string[];
  tests: Record<string, [number[], number[]]>;
} {
  const clauses = [...new Set(result.results.flatMap((r) => r.clauses))].sort();
  const ops = [...new Set(result.results.flatMap((r) => r.operations))].sort();
  const tests: Record<string, [number[], number[]]> = {};
  for (const r of result.results)
    tests[r.id] = [r.clauses.map((c) => clauses.indexOf(c)), r.operations.map((o) => ops.indexOf(o))];
  return { clauses, ops, tests };
}

/** JSON that can sit inside a script element: no `</script>` or comment opener can close it early. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** Why a test failed, without the request log the exchanges show in full. */
function reason(r: TestResult): string {
  const text = r.failure ?? '';
  const cut = text.indexOf('\nrequests:\n');
  return cut === -1 ? text : text.slice(0, cut);
}

function failureCard(r: TestResult): string {
  const exchanges = (r.exchanges ?? [])
    .map(
      (e) =>
        `<li class="${e.faulty ? 'faulty' : ''}"><code>${html(e.request)}</code> → <b>${e.status}</b>${e.faulty ? ' <span class="tag failed">broke the document</span>' : ''}${e.body !== undefined ? `<pre class="sent">${html(e.body)}</pre>` : ''}${e.answer ? `<pre>${html(e.answer)}</pre>` : ''}</li>`,
    )
    .join('');
  const curl = r.reproducers?.length
    ? `<div class="curl">${html(REPRODUCE_HEADING)}<pre>${html(r.reproducers.join('\n'))}</pre></div>`
    : '';
  return `<article class="t card failed" id="test-${html(r.id)}" ${testData(r)}>
<h3>✘ <code>${html(r.id)}</code> ${html(r.title)}</h3>
<pre class="reason">${html(reason(r))}</pre>
${exchanges ? `<details open><summary>Requests and answers (${r.exchanges!.length})</summary><ol class="exchanges">${exchanges}</ol></details>` : ''}
${curl}
<p class="meta">clauses: ${html(r.clauses.join(' · ') || '—')}<br>operations: ${html(r.operations.join(', ') || '—')}</p>
</article>`;
}

const SCRIPT = `
(() => {
  const status = document.getElementById('f-status');
  const clause = document.getElementById('f-clause');
  const op = document.getElementById('f-op');
  const shown = document.getElementById('f-shown');
  const index = JSON.parse(document.getElementById('filter-index').textContent);
  const apply = () => {
    const s = status.value, c = clause.value, o = op.value;
    let visible = 0;
    const tests = new Set();
    for (const el of document.querySelectorAll('.t')) {
      const [clauses, ops] = index.tests[el.dataset.id] || [[], []];
      const ok = (s === 'all' || (s === 'warned' ? el.dataset.warned === '1' : el.dataset.status === s)) &&
        (c === '' || clauses.includes(Number(c))) &&
        (o === '' || ops.includes(Number(o)));
      el.hidden = !ok;
      if (ok && el.dataset.id) tests.add(el.dataset.id);
    }
    for (const group of document.querySelectorAll('.group'))
      group.hidden = group.querySelector('.t:not([hidden])') === null;
    for (const section of document.querySelectorAll('section[data-filtered]')) {
      const none = section.querySelector('.t:not([hidden])') === null;
      section.querySelector('.none').hidden = !none;
    }
    visible = tests.size;
    for (const button of document.querySelectorAll('button[data-status]'))
      button.setAttribute('aria-pressed', String(button.dataset.status === s));
    shown.textContent = visible + ' of ' + document.querySelectorAll('tr.t').length + ' tests shown';
    const hash = [s !== 'all' ? 'status=' + s : '', c ? 'clause=' + encodeURIComponent(index.clauses[c]) : '', o ? 'op=' + index.ops[o] : ''].filter(Boolean).join('&');
    history.replaceState(null, '', hash ? '#' + hash : location.pathname);
  };
  for (const button of document.querySelectorAll('button[data-status]'))
    button.addEventListener('click', () => { status.value = button.dataset.status; apply(); });
  for (const el of [status, clause, op]) el.addEventListener('change', apply);
  const given = new URLSearchParams(location.hash.slice(1));
  if (given.get('status')) status.value = given.get('status');
  if (given.get('clause')) clause.value = String(index.clauses.indexOf(given.get('clause')));
  if (given.get('op')) op.value = String(index.ops.indexOf(given.get('op')));
  apply();
})();
`;

/** The HTML report as one self-contained page (see the module comment). */
export function matrixHtml(result: SuiteResult): string {
  const clauses = clauseFigures(result);
  const ops = operationFigures(result);
  const failed = result.results.filter((r) => r.status === 'failed');
  const skipped = result.results.filter((r) => r.status === 'skipped');
  const warned = result.results.filter((r) => r.warnings.length > 0);
  const groups = warningGroups(result);
  const byId = new Map(result.results.map((r) => [r.id, r]));
  const { summary } = result;

  const verdict = result.ok
    ? `PASS — ${summary.passed} of ${summary.total} tests passed${summary.warnings ? `, ${summary.warnings} warnings` : ''}`
    : `FAIL — ${summary.failed} of ${summary.total} tests failed${summary.warnings ? `, ${summary.warnings} warnings` : ''}`;
  const warningSections = groups
    .map((group) => {
      // One line per test in the group (its first example and how many more), so hundreds of warnings of a
      // property-based test stay one line and the page stays light; the filters still find every test.
      const perTest = new Map<string, string[]>();
      for (const item of group.items) perTest.set(item.testId, [...(perTest.get(item.testId) ?? []), item.text]);
      const items = [...perTest]
        .map(([testId, texts]) => {
          const more = texts.length > 1 ? ` <span class="count">and ${texts.length - 1} more like it</span>` : '';
          return `<li class="t" ${testData(byId.get(testId)!)}><code>${html(testId)}</code> ${html(texts[0]!)}${more}</li>`;
        })
        .join('');
      const tests = new Set(group.items.map((item) => item.testId)).size;
      const decision = group.decision
        ? `<div class="decision">decision <code>${html(group.decision.pointer)}</code> · <code>openapi/${html(group.decision.entry)}</code></div>`
        : '';
      return `<details class="group" open><summary><b>${html(group.title)}</b> <span class="count">${group.items.length} × in ${tests} test${tests === 1 ? '' : 's'}</span></summary>${decision}<ul>${items}</ul></details>`;
    })
    .join('\n');
  const clauseRows = result.clauses
    .map((c) => {
      // Every test that did not pass is named; of the passing ones a few, the filter by clause lists the rest.
      const notPassed = c.tests.filter((t) => t.status !== 'passed');
      const passed = c.tests.filter((t) => t.status === 'passed');
      const named = [...notPassed, ...passed.slice(0, Math.max(0, 4 - notPassed.length))];
      const more = c.tests.length - named.length;
      const tests = [
        ...named.map((t) =>
          t.status === 'passed'
            ? `✔ ${html(t.id)}`
            : `<span class="${t.status}">${ICON[t.status]} ${html(t.id)}</span>`,
        ),
        ...(more > 0 ? [`… and ${more} more passed`] : []),
      ].join('<br>');
      // The spec's own words, shortened: the clause id leads to the rest, and the page stays light.
      const text = c.text.length > 200 ? `${c.text.slice(0, 200)}…` : c.text;
      return `<tr class="${c.state}"><td><b>${html(c.id)}</b><div class="text">${html(text)}</div></td><td>${STATE_LABEL[c.state]}${c.notShown ? ' (not shown)' : ''}</td><td>${tests || '—'}</td></tr>`;
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
        `<tr class="t ${r.status}" ${testData(r)}><td>${r.status === 'failed' ? `<a href="#test-${html(r.id)}"><code>${html(r.id)}</code></a>` : `<code>${html(r.id)}</code>`}<div class="text">${html(r.title)}</div></td><td>${ICON[r.status]} ${r.status}${r.skipReason ? `: ${html(r.skipReason)}` : ''}${r.incompleteReason ? `: ${html(r.incompleteReason)}` : ''}${r.warnings.length ? ` <span class="tag warned">${r.warnings.length} warning${r.warnings.length === 1 ? '' : 's'}</span>` : ''}</td><td>${r.durationMs} ms</td></tr>`,
    )
    .join('\n');
  const index = filterIndex(result);
  const clauseOptions = index.clauses.map((c, i) => `<option value="${i}">${html(c)}</option>`).join('');
  const opOptions = index.ops.map((o, i) => `<option value="${i}">${html(o)}</option>`).join('');
  const button = (status: string, label: string, n: number): string =>
    `<button type="button" data-status="${status}" class="${status}">${label} <b>${n}</b></button>`;

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${result.ok ? 'PASS' : 'FAIL'} · RestoAPI contract report</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1.5rem;color:#222}
h1{font-size:1rem;font-weight:normal;color:#555;margin:0}h2{margin:2rem 0 .5rem;border-bottom:1px solid #ddd}
.verdict{padding:1rem 1.25rem;border-radius:6px;margin:.5rem 0 1rem;color:#fff}.verdict.pass{background:#176f2c}.verdict.fail{background:#b00020}
.verdict .big{font-size:1.6rem;font-weight:600}.verdict p{margin:.3rem 0 0;opacity:.9}.verdict code{color:#fff}
nav.filters{position:sticky;top:0;background:#fafafa;border:1px solid #ddd;border-radius:6px;padding:.5rem .75rem;display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;z-index:1}
nav button{border:1px solid #ccc;background:#fff;border-radius:4px;padding:.25rem .6rem;cursor:pointer;font:inherit}
nav button[aria-pressed=true]{border-color:#222;box-shadow:inset 0 -3px 0 #222}nav select{font:inherit;max-width:16rem}#f-shown{color:#666;margin-left:auto}
.card{border:1px solid #e3b4bc;border-left:5px solid #b00020;border-radius:6px;padding:.5rem 1rem;margin:.75rem 0;background:#fffafb}
.card h3{margin:.3rem 0;font-size:1.05rem}.reason{background:#fff;border:1px solid #eee;padding:.5rem;font-size:12.5px}
pre{white-space:pre-wrap;word-break:break-word;font-size:12px;margin:.25rem 0;max-height:16rem;overflow:auto}
.exchanges li{margin:.35rem 0}.exchanges pre{background:#f6f6f6;padding:.35rem}.exchanges pre.sent{background:#eef4ff}.exchanges li.faulty>code{color:#b00020}
.curl pre{background:#222;color:#eee;padding:.5rem}.meta{color:#666;font-size:12px}
.tag{font-size:11px;border-radius:3px;padding:0 .3rem}.tag.failed{background:#fde2e6;color:#b00020}.tag.warned{background:#fff1cc;color:#7a5200}
.group{border:1px solid #eed9a0;background:#fffcf2;border-radius:6px;margin:.5rem 0;padding:.35rem .75rem}.group summary{cursor:pointer}.count{color:#7a5200;font-size:12px;margin-left:.4rem}
.decision{font-size:12px;color:#555;margin:.2rem 0}.group ul{margin:.3rem 0;padding-left:1.2rem;font-size:12.5px}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.3rem .5rem;vertical-align:top;text-align:left}th{background:#f4f4f4}
.text{color:#666;font-size:12px}tr.failed td:nth-child(2),.failed{color:#b00020}tr.uncovered td:nth-child(2){color:#a60}.passed{color:#176f2c}.skipped{color:#777}.missing{color:#999}
details.coverage{margin:.5rem 0}details.coverage>summary{cursor:pointer;font-weight:600}.figures li{margin:.2rem 0}[hidden]{display:none!important}
</style></head><body>
<h1>RestoAPI contract report</h1>
<div class="verdict ${result.ok ? 'pass' : 'fail'}"><div class="big">${verdict}</div>
<p>${summary.passed} passed · ${summary.failed} failed · ${summary.skipped} skipped · ${warned.length} tests with warnings</p>
<p class="relaxed">Relaxed by the configuration: ${html(relaxationLines(result.relaxations).join('; ') || 'nothing (every check and decision was checked)')}</p>
<p>Target <code>${html(result.baseUrl)}</code> · profile <b>${result.profile}</b> · selection <code>${html(result.selection)}</code> · seed <code>${result.seed}</code> (reproduce with <code>--seed ${result.seed}</code>) · ${result.startedAt} · ${(result.durationMs / 1000).toFixed(1)} s</p></div>
<nav class="filters" aria-label="filters">
${button('all', 'All', summary.total)}${button('failed', 'Failed', summary.failed)}${button('warned', 'Warned', warned.length)}${button('skipped', 'Skipped', summary.skipped)}${button('passed', 'Passed', summary.passed)}
<select id="f-status" aria-label="status" hidden><option value="all">all</option><option value="failed">failed</option><option value="warned">warned</option><option value="skipped">skipped</option><option value="passed">passed</option></select>
<label>clause <select id="f-clause"><option value="">any</option>${clauseOptions}</select></label>
<label>operation <select id="f-op"><option value="">any</option>${opOptions}</select></label>
<span id="f-shown"></span>
</nav>
<section id="failures" data-filtered><h2>Failures (${failed.length})</h2>
<p class="none">${failed.length ? 'No failure matches the filters.' : 'No test failed.'}</p>
${failed.map(failureCard).join('\n')}
</section>
<section id="warnings" data-filtered><h2>Warnings (${summary.warnings}) by decision</h2>
<p>${result.profile === 'spec' ? 'Under the <b>spec</b> profile an answer that departs only from what the document decided (where the spec says "not shown") is a warning, not a failure.' : 'Remarks of the tests; under <b>full</b> a departure from a decision is a failure.'}</p>
<p class="none">${groups.length ? 'No warning matches the filters.' : 'No warnings.'}</p>
${warningSections}
</section>
<section id="coverage"><h2>Coverage</h2>
<ul class="figures">
<li>Clauses: <b>${clauses.covered} / ${clauses.total} covered</b>, ${clauses.failed} failing, ${clauses.skipped} only skipped, ${clauses.uncovered} without a test (${clauses.total - clauses.testable} only say "not shown")</li>
<li>Operations: ${ops.exercised} / ${ops.total} exercised; documented statuses seen ${ops.statusesSeen} / ${ops.statusesDocumented}</li>
${skipped.length ? `<li>Skipped: ${skipped.map((r) => `<code>${html(r.id)}</code> (${html(r.skipReason ?? '')})`).join(', ')}</li>` : ''}
</ul>
<details class="coverage" open><summary>Tests (${summary.total})</summary><table><tr><th>Test</th><th>Result</th><th>Time</th></tr>
${testRows}
</table></details>
<details class="coverage"><summary>Clauses (${clauses.total})</summary><table><tr><th>Clause</th><th>State</th><th>Tests</th></tr>
${clauseRows}
</table></details>
<details class="coverage"><summary>Operations and status codes (${ops.total})</summary><table><tr><th>Operation</th><th>Route</th><th>Calls</th><th>Documented statuses (seen in bold)</th><th>Seen</th></tr>
${opRows}
</table></details>
</section>
<script type="application/json" id="filter-index">${scriptJson(index)}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
