import { afterEach, expect, test } from 'vitest';
import {
  ConflictError,
  createCarrierClient,
  createRestoClient,
  ImportJob,
  ImportJobError,
  ImportJobTimeoutError,
  type FetchLike,
} from '@restoapi/sdk';
import { FRIDAY_EVENING, handedOverOrder, startMock, TINY_PNG, type MockTarget } from '../support/mock-target.js';
import {
  createIndependentService,
  type DepartureName,
  type IndependentService,
} from '../../../../scripts/testing/independent-service.js';
import { departing, noContent, otherBody, type Departure } from '../support/departures.js';

let target: MockTarget | undefined;
let independent: IndependentService | undefined;
afterEach(async () => {
  await target?.close();
  await independent?.close();
  target = independent = undefined;
});

/** The independent implementation (scripts/testing) making `departures`, its requests logged; a signed-in client. */
async function independentService(departures: DepartureName[], mock: { importDurationMs?: number } = {}) {
  independent = createIndependentService({ departures, mock: { config: mock } });
  const service = departing(independent.fetch as FetchLike, []);
  const api = createRestoClient({ baseUrl: 'http://service.test', fetch: service.fetch });
  await api.session.login('admin@pizza.demo', 'demo');
  service.requests.length = 0;
  return { api, requests: service.requests, service };
}

/** The mock in-process, seen through departures; a client signed in as the organization's admin. */
async function serviceDeparting(departures: Departure[]) {
  target = await startMock('in-process', { frozenAt: FRIDAY_EVENING });
  const service = departing(target.fetch as FetchLike, departures);
  const api = createRestoClient({ baseUrl: target.baseUrl, fetch: service.fetch });
  await api.session.login('admin@pizza.demo', 'demo');
  service.requests.length = 0;
  return { api, requests: service.requests, service };
}

const EVERY_PUT_NO_BODY = [noContent('PUT', /./), noContent('DELETE', /./), noContent('POST', /\/publish$/)];

test('setStatus against a service answering 204: the README quickstart line gets the order, read back with one GET', async () => {
  const { api, requests } = await independentService(['status-204']);
  const { order } = await api.orders.setStatus(5002, 'accepted', { sendSms: false });
  expect(order).toMatchObject({ id: 5002, status: 'accepted' });
  expect(requests).toEqual(['PUT /api/orders/5002/status?status=accepted&send_sms=false', 'GET /api/orders/5002']);
});

test('against the mock, whose answers hold the record, no extra GET is made', async () => {
  const { api, requests } = await serviceDeparting([]);
  const { order } = await api.orders.setStatus(5002, 'accepted');
  expect(order.status).toBe('accepted');
  expect(requests).toEqual(['PUT /api/orders/5002/status?status=accepted']);
});

test('every method that changes a record resolves to the record when the service answers 204', async () => {
  const { api, requests } = await serviceDeparting(EVERY_PUT_NO_BODY);
  expect((await api.orders.confirm(5001)).order.restaurant_confirmed_at).not.toBeNull();
  expect((await api.orders.update(5001, { description: 'Ring twice' })).order.description).toBe('Ring twice');
  expect((await api.draftDishes.update(10001, { description: 'Thin crust' })).draft_dish.description).toBe(
    'Thin crust',
  );
  expect((await api.draftDishes.uploadPhoto(10001, TINY_PNG)).draft_dish.photo).not.toBeNull();
  expect((await api.draftCategories.update(1001, { name: 'Pizzas' })).draft_category.name).toBe('Pizzas');
  expect((await api.draftCategories.uploadPhoto(1001, TINY_PNG)).draft_category.photo).not.toBeNull();
  expect((await api.deliveryZones.update(101, { delivery_time: 35 })).delivery_time).toBe(35);
  expect((await api.restaurants.update(11, { phone: '+49 30 1234599' })).restaurants[0]!.phone).toBe('+49 30 1234599');
  expect((await api.organizations.update(1, { about: 'Since 1998' })).organization.about).toBe('Since 1998');
  // One PUT and one GET each.
  expect(requests.filter((r) => r.startsWith('GET '))).toHaveLength(9);
  expect(requests.filter((r) => r.startsWith('PUT '))).toHaveLength(9);
});

test('readBack: false, per call or per client, skips the GET and resolves to undefined when the answer holds no record', async () => {
  const { api, requests } = await serviceDeparting(EVERY_PUT_NO_BODY);
  await expect(api.orders.setStatus(5002, 'accepted', { readBack: false })).resolves.toBeUndefined();
  expect(requests).toEqual(['PUT /api/orders/5002/status?status=accepted']);

  const quiet = createRestoClient({
    baseUrl: target!.baseUrl,
    fetch: departing(target!.fetch as FetchLike, EVERY_PUT_NO_BODY).fetch,
    readBack: false,
    token: (await api.session.token())!,
  });
  await expect(quiet.orders.confirm(5002)).resolves.toBeUndefined();
  // The call's option wins over the client's.
  await expect(quiet.orders.confirm(5002, { readBack: true })).resolves.toMatchObject({ order: { id: 5002 } });
});

test('a method whose useful result is no record resolves to its documented empty result, whatever the answer holds', async () => {
  const { api } = await serviceDeparting([
    otherBody('DELETE', /./, () => ({ deleted: true })),
    otherBody('POST', /\/publish$/, () => ({ published: 'yes' })),
  ]);
  await expect(api.draftDishes.delete(10002)).resolves.toBeUndefined();
  await expect(api.organizations.publish(1)).resolves.toBeUndefined();
  const plain = await serviceDeparting(EVERY_PUT_NO_BODY);
  await expect(plain.api.organizations.publish(1)).resolves.toBeUndefined();
  await expect(plain.api.draftCategories.delete(1002)).resolves.toBeUndefined();
});

test('GET /api/session resolves to the body the service chose, unparsed by our decision', async () => {
  const { api } = await independentService(['session-body']);
  await expect(api.session.get()).resolves.toMatchObject({
    session: { token: expect.any(String), user: { login: 'admin@pizza.demo' } },
  });
});

test('an import job the service calls finished ends the wait, judged by job_percent', async () => {
  // With numeric job ids too: the spec does not say what type the id is.
  const { api } = await independentService(['job-finished', 'numeric-job-id'], { importDurationMs: 200 });
  const job = await api.imports.menu(1, { dishes: [{ name: 'Margherita', price: 9.5, category_name: 'Pizza' }] });
  expect(job.id).toMatch(/^\d+$/);
  const done = await job.wait({ intervalMs: 20, timeoutMs: 5_000 });
  expect(done).toMatchObject({ job_id: Number(job.id), job_status: 'finished', job_percent: 100 });
});

test('a busy menu or client import answered 200 is the documented ConflictError with busy, not a job handle', async () => {
  const { api } = await independentService(['busy-200', 'numeric-job-id']);
  const dishes = [{ name: 'Margherita', price: 9.5, category_name: 'Pizza' }];
  const first = await api.imports.menu(1, { dishes });
  const busy = await api.imports.menu(1, { dishes }).catch((e: unknown) => e);
  expect(busy).toBeInstanceOf(ConflictError);
  expect(busy).toMatchObject({ status: 200, busy: { status: 'busy', job_id: Number(first.id) }, errors: [] });
  expect((busy as ConflictError<number>).job).toBeInstanceOf(ImportJob);
  expect((busy as ConflictError<number>).job!.id).toBe(first.id);

  const clients = [{ external_id: 'c-1', name: 'Ada Lovelace', phone_numbers: ['+49 170 1112233'] }];
  const running = await api.imports.clients(1, { clients });
  const result = await api.imports.clients(1, { clients }).withResponse();
  expect(result.response.status).toBe(200);
  expect(result.data).toBeUndefined();
  expect(result.error).toBeInstanceOf(ConflictError);
  expect(result.error).toMatchObject({ busy: { job_id: Number(running.id) } });
});

test('a busy import answered with another 4xx than 409 is a ConflictError with busy too', async () => {
  target = await startMock('in-process', { frozenAt: FRIDAY_EVENING });
  const locked: Departure = async (method, path, answer) =>
    method === 'POST' && /\/import\/menu$/.test(path) && answer.status === 409
      ? Response.json(await answer.json(), { status: 423 })
      : undefined;
  const service = departing(target.fetch as FetchLike, [locked]);
  const api = createRestoClient({ baseUrl: target.baseUrl, fetch: service.fetch });
  await api.session.login('admin@pizza.demo', 'demo');
  const dishes = [{ name: 'Margherita', price: 9.5, category_name: 'Pizza' }];
  const first = await api.imports.menu(1, { dishes });
  const busy = await api.imports.menu(1, { dishes }).catch((e: unknown) => e);
  expect(busy).toBeInstanceOf(ConflictError);
  expect(busy).toMatchObject({ status: 423, busy: { status: 'busy', job_id: first.id } });
  expect((busy as ConflictError<number>).errors[0]?.code).toBe('import_busy');
});

test('a 2xx or 4xx answer without the busy body is not taken for busy', async () => {
  target = await startMock('in-process', { frozenAt: FRIDAY_EVENING });
  const api = createRestoClient({ baseUrl: target.baseUrl, fetch: target.fetch as FetchLike });
  await api.session.login('admin@pizza.demo', 'demo');
  const job = await api.imports.menu(1, { dishes: [{ name: 'Margherita', price: 9.5, category_name: 'Pizza' }] });
  expect(job).toBeInstanceOf(ImportJob);
  const invalid = await api.imports
    .menu(1, { dishes: [{ name: '', price: -1, category_name: 'Pizza' }] })
    .catch((e) => e);
  expect(invalid).not.toBeInstanceOf(ConflictError);
  expect(invalid).toMatchObject({ status: 422 });
});

test('an import job that ends below 100 % or under a failure name rejects with ImportJobError', async () => {
  target = await startMock('in-process', { config: { importDurationMs: 100 } });
  const stopped = departing(target.fetch as FetchLike, [
    otherBody('GET', /\/import\/menu$/, (s) => ({ ...(s as object), job_status: 'stopped', job_percent: 40 })),
  ]);
  const api = createRestoClient({ baseUrl: target.baseUrl, fetch: stopped.fetch });
  await api.session.login('admin@pizza.demo', 'demo');
  const job = await api.imports.menu(1, { dishes: [{ name: 'Margherita', price: 9.5, category_name: 'Pizza' }] });
  const error = await job.wait({ intervalMs: 10 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ImportJobError);
  expect(error).toMatchObject({ reason: 'failed', state: { job_status: 'stopped', job_percent: 40 } });
  expect((error as Error).message).toMatch(/ended as stopped at 40 %/);
});

test('wait() gives up at its deadline with ImportJobTimeoutError carrying the last state', async () => {
  target = await startMock('in-process', { config: { importDurationMs: 100 } });
  // A service whose job never leaves `working`, stuck at 100 %.
  const stuck = departing(target.fetch as FetchLike, [
    otherBody('GET', /\/import\/menu$/, (s) => ({ ...(s as object), job_status: 'working', job_percent: 100 })),
  ]);
  const api = createRestoClient({ baseUrl: target.baseUrl, fetch: stuck.fetch });
  await api.session.login('admin@pizza.demo', 'demo');
  const job = await api.imports.menu(1, { dishes: [{ name: 'Margherita', price: 9.5, category_name: 'Pizza' }] });
  const started = Date.now();
  const error = await job.wait({ intervalMs: 10, timeoutMs: 150 }).catch((e: unknown) => e);
  expect(Date.now() - started).toBeLessThan(1_000);
  expect(error).toBeInstanceOf(ImportJobTimeoutError);
  expect(error).toMatchObject({
    name: 'ImportJobTimeoutError',
    jobId: job.id,
    timeoutMs: 150,
    state: { job_id: job.id, job_status: 'working', job_percent: 100 },
  });
  expect((error as Error).message).toMatch(/still working \(100 %\) after 150 ms/);
});

test('the carrier client reads the order back after a delivery update answered 204, unless told not to', async () => {
  // The independent implementation with every departure, carrier-delivery-204 among them.
  target = await startMock('independent', { frozenAt: FRIDAY_EVENING });
  const { secureId } = await handedOverOrder(target);
  const service = departing(target.fetch as FetchLike, []);
  const carrier = createCarrierClient({ baseUrl: target.baseUrl, fetch: service.fetch });
  const { order } = await carrier.updateDelivery(secureId, { status: 'courier_assigned', courier_name: 'Tom' });
  expect(order.delivery).toMatchObject({ status: 'courier_assigned', courier_name: 'Tom' });
  expect(service.requests.map((r) => r.split(' ')[0])).toEqual(['PUT', 'GET']);
  await expect(
    carrier.updateDelivery(secureId, { message: 'On the way' }, { readBack: false }),
  ).resolves.toBeUndefined();
  expect(service.requests).toHaveLength(3);
});
