/**
 * Serves the test carrier on its own, for a carrier conformance run by hand (the carriers' guide shows one):
 *
 *   npx tsx contract-tests/test/carrier/serve-test-carrier.ts --port 4020 \
 *     --carrier-api http://127.0.0.1:4010/api-delivery --style resends-status [--fault ignores-retry-after]
 *
 * It stops on Ctrl-C or SIGTERM.
 */
import { parseArgs } from 'node:util';
import { startTestCarrier, type CarrierFault, type CarrierStyle } from './test-carrier.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4020' },
    'carrier-api': { type: 'string', default: 'http://127.0.0.1:4010/api-delivery' },
    style: { type: 'string', default: 'plain' },
    fault: { type: 'string' },
  },
});
const carrierApi = values['carrier-api'];
const carrier = await startTestCarrier({
  carrierApi: () => carrierApi,
  port: Number(values.port),
  style: values.style as CarrierStyle,
  ...(values.fault ? { fault: values.fault as CarrierFault } : {}),
});
console.log(
  `test carrier (${values.style}${values.fault ? `, ${values.fault}` : ''}) listening at ${carrier.callbackUrl}`,
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void carrier.close());
