// A carrier process for the kill-and-restart test, run with `node --import tsx`. It talks to the test over
// stdin/stdout: it prints READY once the courier is on the way, waits for GO, queues the rest of the delivery
// and prints QUEUED, then idles until it is killed.
import { createInterface } from 'node:readline';
import { createCarrierAgent } from '../../src/index.js';
import { createFileOutboxStore } from '../../src/node.js';

const baseUrl = process.env.BASE_URL!;
const secureId = process.env.SECURE_ID!;
const outboxFile = process.env.OUTBOX_FILE!;
const lines = createInterface({ input: process.stdin });
const next = (): Promise<string> => new Promise((resolve) => lines.once('line', resolve));

const agent = createCarrierAgent({
  baseUrl,
  outboxStore: createFileOutboxStore(outboxFile),
  positions: { minIntervalMs: 0, minDistanceM: 0 },
});
await agent.start();
await agent.refresh(secureId);
const tracker = agent.tracker(secureId);
await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543', externalId: 4711 });
await tracker.startDelivery();
await agent.outbox.drained();
console.log('READY');
await next();
await tracker.reportPosition(52.4995, 13.4205);
await tracker.reportProblem('Road closed, taking a detour.');
await tracker.startDelivery();
await tracker.reportPosition(52.4985, 13.4255);
await tracker.reportPosition(52.4978, 13.4298);
await tracker.markDelivered('Handed over to Jonas Becker.');
console.log(`QUEUED ${agent.outbox.pending().length}`);
// Keep running (and retrying) until the test kills the process.
setInterval(() => undefined, 1000);
