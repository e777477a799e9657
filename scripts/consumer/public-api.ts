// A consumer's program over every package's public API. The consumer-project check
// (scripts/consumer/check-consumer.ts) type-checks it against the packed packages, as public-api.mts
// (ESM declarations) and public-api.cts (CommonJS ones), with strict and skipLibCheck: false;
// the repository's typecheck checks it against the sources. It is compiled, never run.
import { createApiDescription, listDecisions, openapiDocument, type MenuImport } from '@restoapi/openapi';
import {
  ConflictError,
  ImportJobTimeoutError,
  createCarrierClient,
  createRestoClient,
  type MainData,
  type RestoClientOptions,
} from '@restoapi/sdk';
import {
  createControlClient,
  createMock,
  validateFixture,
  type MockEngine,
  type MockStateJson,
  type SessionInfo,
} from '@restoapi/mock-server';
import { createMockServer } from '@restoapi/mock-server/node';
import { createMswHandlers } from '@restoapi/mock-server/msw';
import { createCallbackReceiver, createCarrierAgent, type DeliveryTracker } from '@restoapi/carrier-kit';
import { createFileOutboxStore, runSimulator, serve } from '@restoapi/carrier-kit/node';
import { loadConfig, runContractSuite, selectTests, type SuiteResult } from '@restoapi/contract-tests';

const menu: MenuImport = { dishes: [{ name: 'Calzone', price: 10.5, category_name: 'Pizza' }] };
const operations: number = createApiDescription().operations.length;
const decided: string[] = listDecisions(openapiDocument).map((decision) => decision.pointer);

export async function main(): Promise<void> {
  const mock = createMock();
  const server = await createMockServer({ port: 0 });
  const options: RestoClientOptions = { baseUrl: server.url, fetch: mock.fetch };
  const api = createRestoClient(options);
  await api.session.login('admin@pizza.demo', 'demo');
  const page: MainData<'GET /api/orders'> = await api.orders.list({ status: ['pending'] });
  try {
    const job = await api.imports.menu(1, menu);
    await job.wait({ timeoutMs: 60_000, onProgress: (state) => console.log(state.job_percent) });
  } catch (error) {
    if (error instanceof ConflictError && error.busy) console.log('busy');
    if (error instanceof ImportJobTimeoutError) console.log('still', error.state?.job_status);
  }
  // The order after a status change: read back when the answer holds none, unless told not to.
  const { order: accepted } = await api.orders.setStatus(5002, 'accepted', { sendSms: false });
  const unread: MainData<'GET /api/orders/{id}'> | undefined = await api.orders.confirm(5002, { readBack: false });
  const carrier = createCarrierClient({ baseUrl: server.url });
  const control = createControlClient({ baseUrl: server.url });
  await control.POST('/__mock/clock/advance', { body: { ms: 1000 } });
  const state: MockStateJson = mock.exportState();
  const fixture: boolean = validateFixture(state).valid;
  const handlers: unknown[] = createMswHandlers(mock, { baseUrl: server.url });
  const worker: MockEngine = mock.session('worker-1');
  const sessions: SessionInfo[] = server.mock.sessions.list();
  const inSession = createControlClient({ baseUrl: server.url, session: 'worker-1' });
  await inSession.GET('/__mock/sessions');

  const agent = createCarrierAgent({
    baseUrl: server.url,
    mockSession: 'worker-1',
    outboxStore: createFileOutboxStore('outbox.json'),
  });
  agent.on('newOrder', async ({ tracker }: { tracker: DeliveryTracker }) => {
    await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543', externalId: 4711 });
  });
  const receiver = createCallbackReceiver({ handlers: { order_created: (event) => console.log(event.order_id) } });
  const served = await serve(receiver.handle, { port: 0 });
  const simulator = await runSimulator({ baseUrl: server.url, port: 0 });
  await simulator.stop();

  const result: SuiteResult = await runContractSuite({
    baseUrl: server.url,
    config: await loadConfig('restoapi-contract.json'),
    profile: 'spec',
  });
  console.log(
    operations,
    decided.length,
    page.meta,
    carrier,
    fixture,
    handlers.length,
    served.url,
    accepted.status,
    unread,
  );
  console.log(worker.runtime.baseUrl, sessions.length);
  console.log(result.ok, selectTests('full').length);
  await server.close();
}
