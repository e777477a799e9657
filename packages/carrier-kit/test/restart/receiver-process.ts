// A carrier for the crash property test, bundled once by the test (so each start is cheap): the agent on the file store (so its
// receiver records callbacks in the store's inbox before answering), served on a free port. It prints
// `READY <callback url>` and takes every new order by assigning a courier. The test kills it with SIGKILL.
import { createCarrierAgent } from '../../src/agent/carrier-agent.js';
import { createFileOutboxStore } from '../../src/outbox/file-outbox-store.js';
import { serve } from '../../src/receiver/node-adapter.js';

const ack = (process.env.ACK ?? 'recorded') as 'recorded' | 'immediate';
const agent = createCarrierAgent({
  baseUrl: process.env.BASE_URL!,
  outboxStore: createFileOutboxStore(process.env.OUTBOX_FILE!),
  receiver: { ack },
});
agent.on('newOrder', async ({ tracker }) => {
  if (tracker.status === 'idle') await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543' });
});
await agent.start();
const served = await serve(agent.handle, { port: 0 });
console.log(`READY ${served.url}`);
