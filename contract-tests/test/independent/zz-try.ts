import { FAMILY_DEPARTURES } from '../../../scripts/testing/independent-service.js';
import { probeRun } from './probe-run.js';
const names = process.argv.slice(2).length
  ? process.argv.slice(2)
  : Object.keys(FAMILY_DEPARTURES).filter((n) => n.startsWith('answer:'));
for (const name of names) {
  const f = FAMILY_DEPARTURES[name]!;
  const t0 = Date.now();
  const spec = await probeRun({ departures: [], families: [name] }, f.probe, 'spec');
  const t1 = Date.now();
  const full = await probeRun({ departures: [], families: [name] }, f.probe, 'full');
  const sf = spec.results.filter((r) => r.status === 'failed');
  const ff = full.results.filter((r) => r.status === 'failed');
  const naming = ff.filter((r) => r.failure?.includes(f.decision));
  if (process.env.SHOW) for (const r of ff) console.log(r.id, r.failure?.slice(-1500));
  const warned = spec.warningsByDecision.find((g) => g.decision === f.decision)?.count ?? 0;
  console.log(
    `${name}: spec failed ${sf.length}/${spec.summary.total} warn ${warned} ${sf.map((r) => r.id + ': ' + r.failure?.slice(0, 400)).join(' | ')}; full failed ${ff.length}/${full.summary.total}, naming [${naming.map((r) => r.id).join(',')}] ${t1 - t0}+${Date.now() - t1} ms`,
  );
}
