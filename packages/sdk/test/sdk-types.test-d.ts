import { expectTypeOf, test } from 'vitest';
import {
  createCarrierClient,
  createRestoClient,
  fromMinorUnits,
  toMinorUnits,
  type ApiPromise,
  type ApiResult,
  type AuthenticationError,
  type BadRequestError,
  type components,
  type ConflictError,
  type ImportJob,
  type ImportJobState,
  type ImportJobTimeoutError,
  type InternalServerError,
  type MainError,
  type NotFoundError,
  type Order,
  type PermissionDeniedError,
  type RateLimitError,
  type RestoApiError,
  type RestoClientOptions,
  type UnprocessableEntityError,
} from '@restoapi/sdk';

const api = createRestoClient({ baseUrl: 'http://localhost:4010' });
const carrier = createCarrierClient({ baseUrl: 'http://localhost:4010' });
type Schemas = components['schemas'];

test('methods resolve to the generated response types; decimals stay strings', () => {
  expectTypeOf(api.orders.get(5001)).toEqualTypeOf<
    ApiPromise<Schemas['OrderResponse'], MainError<'GET /api/orders/{id}'>>
  >();
  expectTypeOf(api.orders.get(5001)).resolves.toEqualTypeOf<Schemas['OrderResponse']>();
  expectTypeOf(api.orders.list()).resolves.toEqualTypeOf<Schemas['OrderListResponse']>();
  expectTypeOf(api.draftDishes.get(1))
    .resolves.toHaveProperty('draft_dish')
    .toHaveProperty('price')
    .toEqualTypeOf<string>();
  expectTypeOf(api.deliveryZones.get(101)).resolves.toEqualTypeOf<Schemas['DeliveryZone']>();
  expectTypeOf(api.draftDishes.delete(1)).resolves.toEqualTypeOf<undefined>();
  expectTypeOf(api.session.logout()).resolves.toEqualTypeOf<undefined>();
  expectTypeOf(api.orders.receiptPdf(1)).resolves.toEqualTypeOf<Blob>();
  expectTypeOf(api.orders.receiptHtml(1)).resolves.toEqualTypeOf<string>();
  expectTypeOf(api.imports.menu(1, { dishes: [] })).resolves.toEqualTypeOf<ImportJob>();
  expectTypeOf(api.imports.orders(1, { orders: [] }))
    .resolves.toHaveProperty('organization_import')
    .toEqualTypeOf<Schemas['OrderImportResult'][]>();
  expectTypeOf(carrier.getOrder('s'))
    .resolves.toHaveProperty('order')
    .toHaveProperty('order_status')
    .toEqualTypeOf<Schemas['CarrierOrderStatus']>();
  expectTypeOf(api.orders.iterate()).toEqualTypeOf<AsyncGenerator<Order, void, undefined>>();
  expectTypeOf(toMinorUnits('9.50')).toEqualTypeOf<number>();
  expectTypeOf(fromMinorUnits(950)).toEqualTypeOf<string>();
});

test('the error union follows the statuses the operation documents, narrowed by status', async () => {
  expectTypeOf<MainError<'GET /api/orders/{id}'>>().toEqualTypeOf<
    BadRequestError | AuthenticationError | NotFoundError | RateLimitError | InternalServerError
  >();
  // A documented status the operation never answers is not in the union: a courier list refuses nothing with 409.
  expectTypeOf<Extract<MainError<'GET /api/couriers'>, ConflictError>>().toBeNever();
  expectTypeOf<MainError<'POST /api/organizations/{id}/import/menu'>>().toEqualTypeOf<
    | BadRequestError
    | AuthenticationError
    | PermissionDeniedError
    | NotFoundError
    | ConflictError
    | RestoApiError<413>
    | RestoApiError<415>
    | UnprocessableEntityError
    | RateLimitError
    | InternalServerError
  >();

  const result = await api.orders.setStatus(5001, 'complete').withResponse();
  if (result.error) {
    if (result.error.status === 409) expectTypeOf(result.error).toEqualTypeOf<ConflictError>();
    // @ts-expect-error setting a status documents no 422, so the comparison cannot match
    if (result.error.status === 422) return;
  } else {
    expectTypeOf(result.data).toEqualTypeOf<Schemas['OrderResponse']>();
  }

  const plain = api.orders.get(1, { throwOnError: false });
  expectTypeOf(plain).toEqualTypeOf<Promise<ApiResult<Schemas['OrderResponse'], MainError<'GET /api/orders/{id}'>>>>();
  expectTypeOf(api.orders.get(1, { throwOnError: true, timeoutMs: 5 })).toEqualTypeOf<
    ApiPromise<Schemas['OrderResponse'], MainError<'GET /api/orders/{id}'>>
  >();
  const busy = await api.imports.menu(1, { dishes: [] }, { throwOnError: false });
  if (busy.error?.status === 409) expectTypeOf(busy.error.job).toEqualTypeOf<ImportJob | undefined>();
});

test('a wrong filter fails to compile', () => {
  // @ts-expect-error there is no `restaurant` filter, only restaurant_id
  void api.orders.list({ restaurant: 11 });
  // @ts-expect-error restaurant_id takes an array of ids
  void api.orders.list({ restaurant_id: 11 });
  // @ts-expect-error ids are numbers
  void api.orders.list({ courier_id: ['501'] });
  // @ts-expect-error sort_by takes only the documented keys
  void api.orders.list({ sort_by: 'price' });
  // @ts-expect-error 'delivered' is a delivery status, not an order status
  void api.orders.iterate({ status: ['delivered'] });
  // @ts-expect-error draft dishes filter by organization_id and draft_category_id only
  void api.draftDishes.list({ restaurant_id: 11 });
  // @ts-expect-error existing is update or ignore
  void api.imports.orders(1, { orders: [] }, { existing: 'replace' });
  void api.orders.list({
    restaurant_id: [11, 12],
    courier_id: [501],
    client_id: [7001],
    status: ['pending', 'delivery'],
    sort_by: '-delivery_at',
    page: 2,
    per_page: 100,
  });
});

test('a wrong or missing field fails to compile', () => {
  // @ts-expect-error draft_category_id is required on create
  void api.draftDishes.create({ name: 'Margherita', price: '9.50', organization_id: 1 });
  // @ts-expect-error there is no `slogan` field (it is `about`)
  void api.organizations.update(1, { slogan: 'Hot' });
  // @ts-expect-error social_network only takes vk, facebook, twitter, instagram
  void api.organizations.update(1, { social_network: { myspace: 'https://myspace.com/pizza' } });
  // @ts-expect-error a zone needs a name
  void api.deliveryZones.create({ organization_id: 1, restaurant_id: 11 });
  // @ts-expect-error delivery_time is a number of minutes
  void api.deliveryZones.update(101, { delivery_time: '35' });
  // @ts-expect-error a menu dish needs a price
  void api.imports.menu(1, { dishes: [{ name: 'Margherita', category_name: 'Pizza' }] });
  // @ts-expect-error a client needs its external_id
  void api.imports.clients(1, { clients: [{ name: 'Jonas' }] });
  // @ts-expect-error lat is a number
  void carrier.updateDelivery('s', { lat: '52.5' });

  // Fields the service fills with documented defaults may be left out.
  void api.deliveryZones.create({
    organization_id: 1,
    restaurant_id: 11,
    name: 'Neukölln',
    timetables: [{ day: 1, open_at: 'x', close_at: 'y' }],
  });
  void api.imports.menu(1, {
    dishes: [{ name: 'Margherita', price: 9.5, category_name: 'Pizza' }],
    config: { publish_menu: true },
  });
});

test('a wrong status fails to compile', () => {
  // @ts-expect-error 'delivered' is the carrier's delivery status, not an order status
  void api.orders.setStatus(5001, 'delivered');
  // @ts-expect-error order statuses are the documented seven
  void api.orders.update(5001, { status: 'shipped' });
  // @ts-expect-error 'complete' is an order status, not a delivery status
  void carrier.updateDelivery('s', { status: 'complete' });
  void api.orders.setStatus(5001, 'complete', { sendSms: false });
  void carrier.updateDelivery('s', { status: 'problem', message: 'Door locked' });
});

test('the raw typed client stays reachable', () => {
  expectTypeOf(api.raw.GET('/api/couriers'))
    .resolves.toHaveProperty('data')
    .toEqualTypeOf<Schemas['CourierListResponse'] | undefined>();
  // @ts-expect-error the carrier's paths are not on the main client
  void api.raw.GET('/orders/{secure_id}', { params: { path: { secure_id: 's' } } });
});

test('where the spec shows no answer body, the types admit what a correct service may send', () => {
  type OrderAnswer = Schemas['OrderResponse'];
  // Read back by default: the record is always there.
  expectTypeOf(api.orders.setStatus(5002, 'accepted')).resolves.toEqualTypeOf<OrderAnswer>();
  expectTypeOf(api.orders.confirm(5002)).resolves.toEqualTypeOf<OrderAnswer>();
  expectTypeOf(api.orders.update(5002, { description: 'x' })).resolves.toEqualTypeOf<OrderAnswer>();
  expectTypeOf(api.draftDishes.update(1, { name: 'x' })).resolves.toEqualTypeOf<Schemas['DraftDishResponse']>();
  expectTypeOf(api.draftCategories.uploadPhoto(1, new Blob())).resolves.toEqualTypeOf<
    Schemas['DraftCategoryResponse']
  >();
  expectTypeOf(api.deliveryZones.update(1, { name: 'x' })).resolves.toEqualTypeOf<Schemas['DeliveryZone']>();
  expectTypeOf(carrier.updateDelivery('s', { status: 'delivering' }))
    .resolves.toHaveProperty('order')
    .toEqualTypeOf<Schemas['CarrierOrder']>();
  // Without the read-back, the answer may hold nothing: the type says so.
  expectTypeOf(api.orders.setStatus(5002, 'accepted', { readBack: false })).resolves.toEqualTypeOf<
    OrderAnswer | undefined
  >();
  expectTypeOf(carrier.updateDelivery('s', { status: 'delivering' }, { readBack: false })).resolves.toEqualTypeOf<
    Schemas['CarrierOrderResponse'] | undefined
  >();
  const quiet = createRestoClient({ baseUrl: 'http://localhost:4010', readBack: false });
  expectTypeOf(quiet.orders.confirm(5002)).resolves.toEqualTypeOf<OrderAnswer | undefined>();
  expectTypeOf(quiet.orders.confirm(5002, { readBack: true })).resolves.toEqualTypeOf<OrderAnswer>();
  // A typed options object keeps the default; only a readBack given beside it changes the types.
  const options: RestoClientOptions = { baseUrl: 'http://localhost:4010' };
  expectTypeOf(createRestoClient(options).orders.setStatus(1, 'accepted')).resolves.toEqualTypeOf<OrderAnswer>();
  const either = createRestoClient({ ...options, readBack: Math.random() > 0.5 });
  expectTypeOf(either.restaurants.update(11, { name: 'x' })).resolves.toEqualTypeOf<
    Schemas['RestaurantSingleResponse'] | undefined
  >();
  // No record to read back: a documented empty result.
  expectTypeOf(api.organizations.publish(1)).resolves.toEqualTypeOf<Schemas['MenuPublicationResponse'] | undefined>();
  expectTypeOf(api.deliveryZones.delete(1)).resolves.toEqualTypeOf<undefined>();
  // The session's shape is not shown: the caller narrows it.
  expectTypeOf(api.session.get()).resolves.toEqualTypeOf<unknown>();
  // Job statuses beyond `queued` and `working` are the service's names.
  expectTypeOf<ImportJobState['job_status']>().toEqualTypeOf<'queued' | 'working' | (string & {}) | null>();
  expectTypeOf(api.imports.menuState(1)).resolves.toEqualTypeOf<ImportJobState>();
  expectTypeOf<ImportJobTimeoutError['state']>().toEqualTypeOf<ImportJobState | undefined>();
});
