import { expect, test } from 'vitest';
import { decisionAnchor, listDecisions } from './decisions.js';
import { createDepartureClassifier } from './departures.js';
import { openapiDocument } from './generated/document.js';
import { getAtPointer } from './operations.js';
import { createApiDescription } from './validators.js';

const api = createApiDescription();
const classifier = createDepartureClassifier(api);
const json = 'application/json';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- examples are edited freely to break them
type Body = Record<string, any>;

/** The first documented example of an operation's answer, deep-copied so a test can change it. */
function example(operationId: string, status = '200'): Body {
  const response = api.operation(operationId).responses.find((r) => r.status === status)!;
  const media = getAtPointer(openapiDocument, `${response.pointer}/content/application~1json`) as {
    examples: Record<string, { value: unknown }>;
  };
  return structuredClone(Object.values(media.examples)[0]!.value) as Body;
}

function check(operationId: string, body: unknown, status = 200) {
  return classifier.checkResponse(operationId, { status, contentType: json, body });
}

test('the documented examples have no departure at all', () => {
  expect(check('getOrder', example('getOrder'))).toMatchObject({ valid: true, issues: [] });
  expect(check('getDeliveryZone', example('getDeliveryZone'))).toMatchObject({ valid: true });
});

test('an order without number still fails under spec: the field is stated', () => {
  const body = example('getOrder');
  delete body.order.number;
  const { stated, decided } = check('getOrder', body);
  expect(decided).toEqual([]);
  expect(stated).toEqual([expect.objectContaining({ pointer: '/order/number', keyword: 'required', basis: 'stated' })]);
});

test('a dish price sent as a number is stated: the spec returns prices as strings', () => {
  const body = example('getDraftDish');
  body.draft_dish.price = 9.5;
  const { stated, decided } = check('getDraftDish', body);
  expect(decided).toEqual([]);
  expect(stated).toEqual([expect.objectContaining({ pointer: '/draft_dish/price', keyword: 'type' })]);
});

test('a singular restaurant root instead of the plural restaurants is stated', () => {
  const { restaurants } = example('getRestaurant');
  const { stated, decided } = check('getRestaurant', { restaurant: restaurants[0] });
  expect(decided).toEqual([]);
  expect(stated).toEqual([expect.objectContaining({ pointer: '/restaurants', keyword: 'required' })]);
});

test('final_sum as a string is stated, beside a decided part of the same order', () => {
  const body = example('getOrder');
  body.order.final_sum = '42.50';
  body.order.status = 'on_the_way';
  const { stated, decided } = check('getOrder', body);
  expect(stated).toEqual([expect.objectContaining({ pointer: '/order/final_sum', keyword: 'type' })]);
  expect(decided).toEqual([
    expect.objectContaining({
      pointer: '/order/status',
      keyword: 'enum',
      decision: expect.objectContaining({ pointer: '/components/schemas/OrderStatus' }),
    }),
  ]);
});

test('a job_status outside the decided values names the decision and its DECISIONS.md entry', () => {
  const body = { ...example('getMenuImport'), status: 'idle', job_status: 'finished', job_percent: 100 };
  const { stated, decided } = check('getMenuImport', body);
  expect(stated).toEqual([]);
  // The nullable job_status reports both branches (not the enum, not null); both name the decision.
  expect(decided.length).toBeGreaterThan(0);
  expect(decided).toContainEqual(
    expect.objectContaining({
      basis: 'decided',
      pointer: '/job_status',
      keyword: 'enum',
      decision: {
        pointer: '/components/schemas/ImportJobStatus',
        anchor: 'decision-components-schemas-importjobstatus',
        entry: 'DECISIONS.md#decision-components-schemas-importjobstatus',
        summary: 'Values of job_status other than `working` are not shown.',
      },
    }),
  );
  for (const issue of decided) expect(issue.decision?.pointer).toBe('/components/schemas/ImportJobStatus');
});

test('a timetable day numbered from 0 is decided, while a timetable without open_at is stated', () => {
  const body = example('getDeliveryZone');
  body.timetables[0].day = 0;
  delete body.timetables[1].open_at;
  const { stated, decided } = check('getDeliveryZone', body);
  expect(decided).toEqual([
    expect.objectContaining({
      pointer: '/timetables/0/day',
      decision: expect.objectContaining({ pointer: '/components/schemas/Timetable/properties/day' }),
    }),
  ]);
  expect(stated).toEqual([expect.objectContaining({ pointer: '/timetables/1/open_at', keyword: 'required' })]);
});

test('a decided field missing is decided: the carrier delivery block without its null fields', () => {
  const body = example('getCarrierOrder');
  delete body.order.delivery.message;
  const { stated, decided } = check('getCarrierOrder', body);
  expect(stated).toEqual([]);
  expect(decided).toEqual([
    expect.objectContaining({
      pointer: '/order/delivery/message',
      decision: expect.objectContaining({ pointer: '/components/schemas/Delivery' }),
    }),
  ]);
});

test('a marker narrowed by x-decided leaves the field stated: a dish weight as a number or missing fails', () => {
  // The markers on DraftDish.weight and DishWeight decide what `null` means and the string's format, not that the
  // weight is there nor that it is a string.
  const body = example('getDraftDish');
  body.draft_dish.weight = 450;
  delete body.draft_dish.external_id;
  body.draft_dish.options = '[]';
  const { stated, decided } = check('getDraftDish', body);
  expect(decided).toEqual([]);
  expect(stated.map((i) => `${i.pointer} ${i.keyword}`).sort()).toEqual([
    '/draft_dish/external_id required',
    '/draft_dish/options type',
    '/draft_dish/weight type',
  ]);
  // A three-decimal weight fails the string branch's pattern: the null branch's "must be null" is not its fault.
  const three = example('getDraftDish');
  three.draft_dish.weight = '450.000';
  expect(check('getDraftDish', three)).toMatchObject({
    stated: [],
    decided: [
      expect.objectContaining({ decision: expect.objectContaining({ pointer: '/components/schemas/DishWeight' }) }),
    ],
  });
  // An enum judges any type: a number for the (decided) order status is still a stated type error.
  const order = example('getOrder');
  order.order.status = 12345;
  expect(check('getOrder', order).stated).toEqual([
    expect.objectContaining({ pointer: '/order/status', keyword: 'type' }),
  ]);
});

test("a member's presence is its holder's: a courier without last_known_position fails, a WKT position is decided", () => {
  // The field itself is stated (Courier, as embedded); its type is decided on the field (x-decided: [type]).
  const body = example('getOrder');
  delete body.couriers[0].last_known_position;
  delete body.restaurants[0].is_running;
  const { stated, decided } = check('getOrder', body);
  expect(decided).toEqual([]);
  expect(stated.map((i) => `${i.pointer} ${i.keyword}`).sort()).toEqual([
    '/couriers/0/last_known_position required',
    '/restaurants/0/is_running required',
  ]);
  const wkt = example('getOrder');
  wkt.couriers[0].last_known_position = 'POINT(13.43 52.49)';
  expect(check('getOrder', wkt)).toMatchObject({
    stated: [],
    decided: [
      expect.objectContaining({
        decision: expect.objectContaining({ pointer: '/components/schemas/Courier/properties/last_known_position' }),
      }),
    ],
  });
  // Outside an order response the restaurant flags may be left out (decided), but a flag is a boolean wherever.
  const { restaurants } = example('getRestaurant');
  delete restaurants[0].is_running;
  restaurants[0].is_delivery = 'yes';
  expect(check('getRestaurant', { restaurants }).stated.map((i) => `${i.pointer} ${i.keyword}`)).toEqual([
    '/restaurants/0/is_delivery type',
  ]);
});

test('a decided range: an id below 1 is decided, an id that is not an integer is stated', () => {
  const body = example('getRestaurant');
  body.restaurants[0].organization_id = 0;
  body.restaurants[0].id = '11';
  const { stated, decided } = check('getRestaurant', body);
  expect(decided).toEqual([
    expect.objectContaining({
      pointer: '/restaurants/0/organization_id',
      keyword: 'minimum',
      decision: expect.objectContaining({ pointer: '/components/schemas/Id' }),
    }),
  ]);
  expect(stated).toEqual([expect.objectContaining({ pointer: '/restaurants/0/id', keyword: 'type' })]);
});

test('a session body of another shape is decided: the spec does not show it', () => {
  const { stated, decided } = check('getSession', { session: { user: 'anna', valid: true } });
  expect(stated).toEqual([]);
  expect(decided.length).toBeGreaterThan(0);
  for (const issue of decided) expect(issue.decision?.pointer).toBe('/paths/~1api~1session/get/responses/200');
});

test('publish answering 204 without a body is a decided status', () => {
  const result = classifier.checkResponse('publishMenu', { status: 204 });
  expect(result.stated).toEqual([]);
  expect(result.decided).toEqual([
    expect.objectContaining({
      keyword: 'status',
      decision: expect.objectContaining({ pointer: '/paths/~1api~1organizations~1{id}~1publish/post/responses/200' }),
    }),
  ]);
});

test('status and carrier delivery answering 204 are decided; a GET of an order answering 204 is stated', () => {
  expect(classifier.checkResponse('setOrderStatus', { status: 204 }).decided).toHaveLength(1);
  expect(classifier.checkResponse('updateCarrierDelivery', { status: 204 }).decided).toHaveLength(1);
  const get = classifier.checkResponse('getOrder', { status: 204 });
  expect(get.decided).toEqual([]);
  expect(get.stated).toEqual([expect.objectContaining({ keyword: 'status' })]);
});

test('any 4xx is decided, undocumented or with another error body: the spec shows no error status', () => {
  const teapot = classifier.checkResponse('updateOrder', { status: 418, contentType: json, body: { message: 'no' } });
  expect(teapot.stated).toEqual([]);
  expect(teapot.decided).toEqual([expect.objectContaining({ keyword: 'status' })]);
  const plain = classifier.checkResponse('getOrder', { status: 404, contentType: 'text/plain', body: 'not found' });
  expect(plain.stated).toEqual([]);
  expect(plain.decided[0]?.decision?.pointer).toBe('/components/responses/NotFound');
  const shape = check('createDraftDish', { error: 'name is required' }, 422);
  expect(shape.stated).toEqual([]);
  // Another error body departs from the decided error format, more precisely than from the 422's decision.
  expect(shape.decided[0]?.decision?.pointer).toBe('/components/schemas/ErrorBody');
});

test('an undocumented 4xx names the decision on error statuses, never that of a neighbouring status', () => {
  const documented = api.operation('getOrder').responses.map((r) => r.status);
  for (const status of [418, 422, 409]) {
    expect(documented).not.toContain(String(status));
    const result = classifier.checkResponse('getOrder', {
      status,
      contentType: json,
      body: { errors: [{ status: String(status), code: 'conflict', title: 'No' }] },
    });
    expect(result.stated).toEqual([]);
    expect(result.decided).toEqual([
      expect.objectContaining({
        keyword: 'status',
        decision: {
          pointer: '/components/schemas/Error/properties/status',
          anchor: 'decision-components-schemas-error-properties-status',
          entry: 'DECISIONS.md#decision-components-schemas-error-properties-status',
          summary: 'HTTP status codes for error cases are not shown (Errors).',
        },
      }),
    ]);
  }
  // A documented 4xx still names its own response's decision.
  expect(classifier.statusDecision('getOrder', 404)?.pointer).toBe('/components/responses/NotFound');
  expect(classifier.statusDecision('getOrder', 429)?.pointer).toBe('/components/responses/TooManyRequests');
});

test('headers: an empty X-Request-Id and a missing Location are decided, checked only when headers are given', () => {
  const order = example('getOrder');
  const invalid = classifier.checkResponse('getOrder', {
    status: 200,
    contentType: json,
    body: order,
    headers: { 'X-Request-Id': '' },
  });
  expect(invalid.stated).toEqual([]);
  expect(invalid.decided).toEqual([
    expect.objectContaining({
      in: 'header',
      name: 'X-Request-Id',
      decision: expect.objectContaining({ pointer: '/components/headers/X-Request-Id' }),
    }),
  ]);
  const created = classifier.checkResponse('createDraftDish', {
    status: 201,
    contentType: json,
    body: example('getDraftDish'),
    headers: new Headers({ 'X-Request-Id': 'req_1' }),
  });
  expect(created.stated).toEqual([]);
  expect(created.decided).toEqual([expect.objectContaining({ in: 'header', name: 'Location', keyword: 'required' })]);
  expect(check('getOrder', order).issues).toEqual([]);
});

test('a created zone answered 200 is decided, but a created zone without its name is stated', () => {
  const zone = example('getDeliveryZone');
  expect(check('createDeliveryZone', zone, 200).decided).toEqual([expect.objectContaining({ keyword: 'status' })]);
  delete zone.name;
  expect(check('createDeliveryZone', zone, 201).stated).toEqual([
    expect.objectContaining({ pointer: '/name', keyword: 'required' }),
  ]);
});

test('every decision has its own anchor, and every anchor is in DECISIONS.md', async () => {
  const { readFile } = await import('node:fs/promises');
  const markdown = await readFile(new URL('../DECISIONS.md', import.meta.url), 'utf8');
  const anchors = listDecisions(openapiDocument).map((decision) => decisionAnchor(decision.pointer));
  expect(new Set(anchors).size).toBe(anchors.length);
  for (const anchor of anchors) expect(markdown).toContain(`<a id="${anchor}"></a>`);
});

test('a marker covers only what it decided: stated carrier and delivery statuses fail, in a decided answer too', () => {
  const body = example('getCarrierOrder');
  body.order.order_status = 'on_the_road';
  body.order.delivery.status = 'lost';
  for (const operationId of ['getCarrierOrder', 'updateCarrierDelivery']) {
    const { stated, decided } = check(operationId, structuredClone(body));
    expect(decided, operationId).toEqual([]);
    expect(stated.map((issue) => `${issue.pointer} ${issue.keyword}`).sort(), operationId).toEqual([
      '/order/delivery/status enum',
      '/order/order_status enum',
    ]);
  }
  // The shape of the decided answer stays decided: a carrier order missing from it departs from its decision.
  const { stated, decided } = check('updateCarrierDelivery', { ok: true });
  expect(stated).toEqual([]);
  expect(decided.length).toBeGreaterThan(0);
});

test('a staff member with a string organization_id and no role fails; a third role is decided', () => {
  const body = example('createSession');
  body.staff_members = [{ id: 1, organization_id: '1', restaurant_ids: [11] }];
  const { stated } = check('createSession', body);
  expect(stated.map((issue) => `${issue.pointer} ${issue.keyword}`).sort()).toEqual([
    '/staff_members/0/organization_id type',
    '/staff_members/0/role required',
  ]);
  const other = example('createSession');
  other.staff_members = [{ id: 1, role: 'cashier', organization_id: 1, restaurant_ids: [11] }];
  const result = check('createSession', other);
  expect(result.stated).toEqual([]);
  expect(result.decided).toEqual([
    expect.objectContaining({
      pointer: '/staff_members/0/role',
      decision: expect.objectContaining({
        pointer: '/components/schemas/StaffMember/properties/role',
      }),
    }),
  ]);
});

test('JSON under another JSON media type departs only from the decided media type, and its body is still checked', () => {
  const body = example('getOrder');
  const vnd = (answer: Body) =>
    classifier.checkResponse('getOrder', { status: 200, contentType: 'application/vnd.api+json', body: answer });
  const plain = vnd(body);
  expect(plain.stated).toEqual([]);
  expect(plain.decided).toEqual([
    expect.objectContaining({
      keyword: 'contentType',
      decision: expect.objectContaining({ pointer: '/x-json-media-type' }),
    }),
  ]);
  delete body.order.number;
  expect(vnd(body).stated).toEqual([expect.objectContaining({ pointer: '/order/number', keyword: 'required' })]);
  // Not JSON at all is not a choice the spec leaves open.
  const text = classifier.checkResponse('getOrder', { status: 200, contentType: 'text/plain', body: 'order' });
  expect(text.stated).toEqual([expect.objectContaining({ keyword: 'contentType' })]);
});

test('a request is refused by the innermost decision on its way: an unknown field of a decided body, a decided list', () => {
  const body = {
    categories: [{ name: 'Pizza', zz: 1 }],
    dishes: [{ name: 'Margherita', price: 9.5, category_name: 'Pizza', zz: 2 }],
    zz: 3,
  };
  const result = api.validateRequest('importMenu', { params: { id: '1' }, query: {}, contentType: json, body });
  expect(result.valid).toBe(false);
  const decisions = Object.fromEntries(
    (result.valid ? [] : result.issues).map((issue) => [
      issue.pointer,
      classifier.requestDecision('importMenu', issue)?.pointer,
    ]),
  );
  expect(decisions).toEqual({
    '/zz': '/components/schemas/MenuImport',
    '/categories/0/zz': '/components/schemas/MenuImportCategory',
    '/dishes/0/zz': '/components/schemas/MenuImportDish',
  });
  const sort = api.validateRequest('listOrders', { query: '?sort_by=zz' });
  expect(sort.valid ? undefined : classifier.requestDecision('listOrders', sort.issues[0]!)?.pointer).toBe(
    '/paths/~1api~1orders/get/parameters/6',
  );
});

test("a value of none of a oneOf's types names the marker that chose them, not one alternative's", () => {
  const body = example('getCourier');
  body.courier.last_known_position = 'POINT(13.4262 52.4988)';
  const wkt = check('getCourier', body);
  expect(wkt.stated).toEqual([]);
  expect(wkt.decided.map((issue) => issue.decision?.pointer)).toEqual([
    '/components/schemas/Courier/properties/last_known_position',
  ]);
  // A position without its updated_at is still decided, stated by nothing.
  const inside = example('getCourier');
  delete inside.courier.last_known_position.updated_at;
  expect(check('getCourier', inside).stated).toEqual([]);
});
