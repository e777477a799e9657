// Serves the independent implementation of the API (scripts/testing/independent-service.ts: the mock
// deciding differently wherever the spec says "not shown") on 127.0.0.1, to try the contract suite's
// `spec` and `full` profiles and the proxy against a correct service that is not ours.
//   node scripts/start-independent-service.mjs [--port 4020] [--departure NAME]...
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '4020' }, departure: { type: 'string', multiple: true } },
});
register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
const { DEPARTURES, startIndependentService } = await import('./testing/independent-service.ts');
const unknown = (values.departure ?? []).filter((name) => !(name in DEPARTURES));
if (unknown.length) {
  console.error(`unknown departure ${unknown.join(', ')}; known: ${Object.keys(DEPARTURES).join(', ')}`);
  process.exit(2);
}
const running = await startIndependentService({
  port: Number(values.port),
  ...(values.departure ? { departures: values.departure } : {}),
});
console.log(`independent service at ${running.url} (control API ${running.url}/__mock), departing from openapi/ in:`);
for (const name of running.service.departures) console.log(`  ${name}: ${DEPARTURES[name].does}`);
process.on('SIGINT', () => void running.close().then(() => process.exit(0)));
process.on('SIGTERM', () => void running.close().then(() => process.exit(0)));
