/**
 * `--report DIR`: the proxy's report as files a CI server and a person read: JUnit XML (one test case
 * per operation seen, failed when any of its exchanges violated the document, its warnings as properties
 * and output), a readable HTML page and the JSON of `GET /__proxy/report`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import junitModule, { type Builder } from 'junit-report-builder';
import { formatViolation, formatWarning } from './live-printer.js';
import type { ProxyReportJson } from './proxy-report.js';
import type { Violation } from './violation.js';

// The package is CommonJS (`module.exports = builder`) while its types declare a default export: take whichever holds it.
const junit = ((junitModule as unknown as { default?: Builder }).default ?? junitModule) as unknown as Builder;

/** File names written under `--report DIR`. */
export const REPORT_FILES = {
  junit: 'proxy-report.xml',
  html: 'proxy-report.html',
  json: 'proxy-report.json',
} as const;

/** The report as JUnit XML (junit-report-builder escapes every value). */
export function junitXml(report: ProxyReportJson): string {
  const builder = junit.newBuilder();
  const suite = builder
    .testSuite()
    .name(`restoapi-proxy ${report.upstream}`)
    .property('profile', report.profile)
    .property('warnings', String(report.warnings));
  for (const op of report.operations) {
    const test = suite
      .testCase()
      .className('restoapi.proxy')
      .name(op.operationId ? `${op.route} (${op.operationId})` : op.route)
      .property('requests', String(op.requests));
    // A warned operation stays green; CI tools list its properties and output beside it.
    for (const warning of op.warnings) test.property('warning', formatWarning(warning));
    if (op.warnings.length > 0) test.standardOutput(op.warnings.map(formatWarning).join('\n'));
    if (op.failed > 0)
      test
        .failure(`${op.failed} of ${op.requests} requests violated the API description`, 'contract_violation')
        .stacktrace(op.violations.map(formatViolation).join('\n'));
  }
  return builder.build();
}

/** Escapes text for HTML element content and attribute values. */
function html(text: unknown): string {
  return String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** The report as one self-contained HTML page (every value escaped). */
export function reportHtml(report: ProxyReportJson): string {
  const rows = report.operations
    .map(
      (op) =>
        `<tr class="${op.failed > 0 ? 'bad' : op.warned > 0 ? 'warn' : 'ok'}"><td><code>${html(op.route)}</code></td><td>${html(op.operationId ?? '—')}</td><td>${op.requests}</td><td>${op.failed}</td><td>${op.warned}</td></tr>`,
    )
    .join('\n');
  const table = (
    list: Violation[],
  ): string => `<table><thead><tr><th>when</th><th>request</th><th>side</th><th>pointer</th><th>expected</th><th>actual</th><th>decision</th></tr></thead><tbody>
${list
  .map(
    (v) =>
      `<tr><td>${html(v.at)}</td><td><code>${html(`${v.method} ${v.path}`)}</code></td><td>${html(v.side)}</td><td><code>${html(v.pointer || '(whole)')}</code></td><td>${html(v.expected)}</td><td><code>${html(v.actual)}</code></td><td>${v.decision ? `<code>${html(v.decision.entry)}</code>` : '—'}</td></tr>`,
  )
  .join('\n')}
</tbody></table>`;
  const details = report.operations
    .filter((op) => op.violations.length > 0)
    .map((op) => `<h3><code>${html(op.route)}</code> ${html(op.operationId ?? '')}</h3>\n${table(op.violations)}`)
    .join('\n');
  const warningDetails = report.operations
    .filter((op) => op.warnings.length > 0)
    .map((op) => `<h3><code>${html(op.route)}</code> ${html(op.operationId ?? '')}</h3>\n${table(op.warnings)}`)
    .join('\n');
  const decisions = report.decisions
    .map(
      (d) =>
        `<tr class="warn"><td>${html(d.summary)}<br><code>${html(d.pointer)}</code></td><td><code>openapi/${html(d.entry)}</code></td><td>${d.count}</td><td>${d.routes.map((r) => `<code>${html(r)}</code>`).join('<br>')}</td></tr>`,
    )
    .join('\n');
  const failures = Object.entries(report.upstreamFailures)
    .map(([kind, count]) => `${html(kind)}: ${count}`)
    .join(', ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>RestoAPI proxy report</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem}table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left;vertical-align:top}tr.bad td{background:#fde8e8}tr.warn td{background:#fff8e1}tr.ok td{background:#eef9ee}code{font-size:13px}</style>
</head><body>
<h1>RestoAPI proxy report</h1>
<p>Upstream <code>${html(report.upstream)}</code>, since ${html(report.startedAt)}, profile <b>${html(report.profile)}</b>: ${report.requests} requests, ${report.failed} with violations, ${report.violations} violations${failures ? `; upstream failures: ${failures}` : ''}; ${report.warnings} warnings.</p>
<table><thead><tr><th>operation</th><th>operationId</th><th>requests</th><th>with violations</th><th>with warnings</th></tr></thead><tbody>
${rows}
</tbody></table>
<h2>Violations</h2>
${details || '<p>None.</p>'}
<h2>Warnings by decision</h2>
<p>Answers that depart only from what the document decided where the spec says "not shown"${report.profile === 'spec' ? ': warnings under the <b>spec</b> profile, never violations' : ''}.</p>
${decisions ? `<table><thead><tr><th>decision</th><th>entry</th><th>warnings</th><th>operations</th></tr></thead><tbody>\n${decisions}\n</tbody></table>\n${warningDetails}` : '<p>None.</p>'}
</body></html>
`;
}

/** Writes the three report files into `dir` (created when missing); returns their paths. */
export async function writeReportFiles(dir: string, report: ProxyReportJson): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: [string, string][] = [
    [join(dir, REPORT_FILES.junit), junitXml(report)],
    [join(dir, REPORT_FILES.html), reportHtml(report)],
    [join(dir, REPORT_FILES.json), `${JSON.stringify(report, null, 2)}\n`],
  ];
  for (const [path, text] of files) await writeFile(path, text);
  return files.map(([path]) => path);
}
