import { expect, test } from 'vitest';
import { createApiDescription, createApiValidator, type ApiValidator } from './validators.js';

const api = createApiDescription();

const margherita = {
  draft_dish: {
    name: 'Margherita',
    price: '9.50',
    draft_category_id: 1001,
    organization_id: 1,
    options: [
      {
        name: 'Size',
        multiple: false,
        items: [
          { name: '30 cm', price: 0 },
          { name: '40 cm', price: '4.00' },
        ],
      },
    ],
  },
};

test('a valid draft dish body is accepted', () => {
  const result = api.validateRequest('createDraftDish', { contentType: 'application/json', body: margherita });
  expect(result).toMatchObject({ valid: true });
});

test('a missing required field is reported with its JSON pointer', () => {
  const { name: _name, ...withoutName } = margherita.draft_dish;
  const result = api.validateRequest('createDraftDish', {
    contentType: 'application/json',
    body: { draft_dish: withoutName },
  });
  expect(result.valid).toBe(false);
  if (result.valid) return;
  expect(result.issues).toContainEqual(
    expect.objectContaining({ in: 'body', pointer: '/draft_dish/name', keyword: 'required' }),
  );
  expect(result.issues[0]!.message).toContain('/draft_dish/name');
});

test('a wrong type deep in the configurator names the exact element', () => {
  const body = structuredClone(margherita);
  (body.draft_dish.options[0]!.items[1] as { price: unknown }).price = 'four euros';
  const result = api.validateRequest('createDraftDish', { contentType: 'application/json', body });
  expect(result.valid).toBe(false);
  if (result.valid) return;
  expect(result.issues.map((i) => i.pointer)).toContain('/draft_dish/options/0/items/1/price');
});

test('an unknown field in a request body is refused', () => {
  const body = { draft_dish: { ...margherita.draft_dish, colour: 'red' } };
  const result = api.validateRequest('createDraftDish', { contentType: 'application/json', body });
  expect(result).toMatchObject({
    valid: false,
    issues: [expect.objectContaining({ pointer: '/draft_dish/colour', keyword: 'additionalProperties' })],
  });
});

test('a JSON body sent as text/plain is refused on Content-Type', () => {
  const result = api.validateRequest('createDraftDish', {
    contentType: 'text/plain',
    body: JSON.stringify(margherita),
  });
  expect(result).toMatchObject({
    valid: false,
    issues: [expect.objectContaining({ in: 'header', name: 'Content-Type' })],
  });
});

test('query parameters are coerced, arrays collected from repeated keys, defaults applied', () => {
  const query = new URLSearchParams('restaurant_id=11&restaurant_id=12&status=delivery&per_page=50');
  const result = api.validateRequest('listOrders', { query });
  expect(result.valid).toBe(true);
  if (!result.valid) return;
  expect(result.value.query).toMatchObject({ restaurant_id: [11, 12], status: ['delivery'], per_page: 50, page: 1 });
});

test('array parameters take `name` values, then `name[]` values, split on commas; scalars take their first value', () => {
  const query = new URLSearchParams(
    'status[]=cooking&status=delivery,pending&undeclared=1&status=,ready&per_page=20&per_page=30&restaurant_id[]=12,11',
  );
  const result = api.validateRequest('listOrders', { query });
  expect(result.valid).toBe(true);
  if (!result.valid) return;
  expect(result.value.query).toEqual({
    status: ['delivery', 'pending', 'ready', 'cooking'],
    per_page: 20,
    restaurant_id: [12, 11],
    page: 1,
    sort_by: '-created_at',
  });
  // The same operation again (its prepared plan reused) reads a different query on its own.
  const again = api.validateRequest('listOrders', { query: new URLSearchParams('courier_id=501') });
  expect(again.valid && again.value.query).toEqual({
    courier_id: [501],
    page: 1,
    per_page: 25,
    sort_by: '-created_at',
  });
});

test('an out-of-range query parameter names the parameter', () => {
  const result = api.validateRequest('listOrders', { query: new URLSearchParams('per_page=1000') });
  expect(result).toMatchObject({ valid: false, issues: [expect.objectContaining({ in: 'query', name: 'per_page' })] });
});

test('an invalid enum value in the query lists the allowed values', () => {
  const result = api.validateRequest('listOrders', { query: new URLSearchParams('sort_by=price') });
  expect(result.valid).toBe(false);
  if (result.valid) return;
  expect(result.issues[0]).toMatchObject({ name: 'sort_by', keyword: 'enum' });
  expect(result.issues[0]!.message).toContain('"-created_at"');
});

test('path parameters are coerced to integers and refused when not numeric', () => {
  expect(api.validateRequest('getOrder', { params: { id: '5001' } })).toMatchObject({
    valid: true,
    value: { params: { id: 5001 } },
  });
  expect(api.validateRequest('getOrder', { params: { id: 'abc' } })).toMatchObject({
    valid: false,
    issues: [expect.objectContaining({ in: 'path', name: 'id' })],
  });
});

test('the router finds canonical paths, the /orders alias and the carrier paths', () => {
  expect(api.match('GET', '/api/orders/5001')).toMatchObject({
    operation: { operationId: 'getOrder' },
    params: { id: '5001' },
  });
  expect(api.match('GET', '/orders/5001')).toMatchObject({ operation: { operationId: 'getOrder' } });
  expect(api.match('GET', '/api/orders/5001/receipt.pdf')?.operation.operationId).toBe('getOrderReceiptPdf');
  expect(api.match('GET', '/api-delivery/orders/abc123')).toMatchObject({
    operation: { operationId: 'getCarrierOrder' },
    params: { secure_id: 'abc123' },
  });
  // The main API's /orders alias and the carrier API never reach each other's operations.
  expect(api.match('GET', '/orders/abc123')?.operation.operationId).toBe('getOrder');
  expect(api.match('PUT', '/orders/abc123/delivery')).toBeUndefined();
  expect(api.match('GET', '/api-delivery/orders/5001/items')).toBeUndefined();
  expect(api.match('POST', '/api/draft_dishes/')?.operation.operationId).toBe('createDraftDish');
  expect(api.match('PATCH', '/api/orders/5001')).toBeUndefined();
  expect(api.allowedMethods('/api/orders/5001').sort()).toEqual(['GET', 'PUT']);
});

test('responses are checked for documented status, media type and body', () => {
  const error = { errors: [{ status: '404', code: 'not_found', title: 'Not found' }] };
  expect(api.validateResponse('getOrder', { status: 404, contentType: 'application/json', body: error }).valid).toBe(
    true,
  );
  expect(api.validateResponse('getOrder', { status: 418, contentType: 'application/json', body: error })).toMatchObject(
    {
      valid: false,
      issues: [expect.objectContaining({ keyword: 'status' })],
    },
  );
  expect(api.validateResponse('getOrder', { status: 404, contentType: 'text/html', body: '<p>' })).toMatchObject({
    valid: false,
    issues: [expect.objectContaining({ name: 'Content-Type' })],
  });
  expect(
    api.validateResponse('getOrder', { status: 404, contentType: 'application/json', body: { errors: [] } }).valid,
  ).toBe(false);
});

test('standalone payloads validate by component name', () => {
  const ok = api.validateSchema('ClientImport', {
    clients: [{ external_id: 'c-1', name: 'Jonas Becker', birthdate: '01/02/1990' }],
  });
  expect(ok.valid).toBe(true);
  const bad = api.validateSchema('ClientImport', { clients: [{ external_id: 'c-1', birthdate: '1990-02-01' }] });
  expect(bad).toMatchObject({ valid: false, issues: [expect.objectContaining({ pointer: '/clients/0/birthdate' })] });
});

test('the former name createApiValidator still makes the same description (deprecated alias)', () => {
  const former: ApiValidator = createApiValidator();
  expect(former.operations.map((op) => op.operationId)).toEqual(api.operations.map((op) => op.operationId));
  expect(former.match('GET', '/api/orders/5')?.operation.operationId).toBe(
    api.match('GET', '/api/orders/5')?.operation.operationId,
  );
});

test('a non-canonical integer in a path is refused by name, whatever the router decoded', () => {
  // An integer written another way is refused for its form (decided on Id); one past 2^53 - 1 for its range.
  for (const id of ['0x1', '+1', '01', ' 1', '1 ', '1e3', '1.0', '-0', '9007199254740992']) {
    const result = api.validateRequest('publishMenu', { params: { id } });
    const keyword = id === '9007199254740992' ? 'maximum' : 'format';
    expect(result, id).toMatchObject({ valid: false, issues: [{ in: 'path', name: 'id', keyword }] });
  }
  // No integer at all: a wrong type, which the spec states.
  for (const id of ['abc', '1.5', ' '])
    expect(api.validateRequest('publishMenu', { params: { id } }), id).toMatchObject({
      valid: false,
      issues: [{ in: 'path', name: 'id', keyword: 'type' }],
    });
  expect(api.validateRequest('publishMenu', { params: { id: '1' } })).toMatchObject({
    valid: true,
    value: { params: { id: 1 } },
  });
  // Canonical, so the schema's minimum decides.
  expect(api.validateRequest('publishMenu', { params: { id: '-1' } })).toMatchObject({
    valid: false,
    issues: [{ name: 'id', keyword: 'minimum' }],
  });
});

test('a path parameter with a malformed percent-encoding is refused by name', () => {
  const match = api.match('GET', '/api/orders/%E0');
  expect(match).toMatchObject({ operation: { operationId: 'getOrder' }, params: { id: '%E0' }, malformed: ['id'] });
  const result = api.validateRequest('getOrder', { params: match!.params, malformed: match!.malformed });
  expect(result).toMatchObject({
    valid: false,
    issues: [{ in: 'path', name: 'id', keyword: 'encoding', message: 'id is not valid percent-encoded UTF-8' }],
  });
  expect(api.match('GET', '/api-delivery/orders/%')).toMatchObject({ malformed: ['secure_id'] });
  expect(api.match('GET', '/api/orders/5%30')).toMatchObject({ params: { id: '50' } });
  expect(api.match('GET', '/api/orders/50')).not.toHaveProperty('malformed');
});

test('query integers, array items included, must be canonical; a raw query string is decoded strictly', () => {
  const listOrders = (query: string) => api.validateRequest('listOrders', { query });
  expect(listOrders('?per_page=1e1')).toMatchObject({ valid: false, issues: [{ in: 'query', name: 'per_page' }] });
  expect(listOrders('restaurant_id=11&restaurant_id=0x1')).toMatchObject({
    valid: false,
    issues: [{ in: 'query', name: 'restaurant_id', keyword: 'format' }],
  });
  expect(listOrders('page=%E0')).toMatchObject({
    valid: false,
    issues: [{ in: 'query', name: 'page', keyword: 'encoding' }],
  });
  expect(listOrders('?page=2&restaurant_id=11,12&status=pending')).toMatchObject({
    valid: true,
    value: { query: { page: 2, restaurant_id: [11, 12], status: ['pending'] } },
  });
  expect(api.validateRequest('listOrders', { query: new URLSearchParams('page=01') })).toMatchObject({
    valid: false,
    issues: [{ name: 'page', keyword: 'format' }],
  });
});

test('each media type keeps its own verdict, however many a client sends in turn', () => {
  // Checks are found once per media type and operation: a refused type must stay refused, a JSON check must
  // never be used for a form, and types beyond those remembered are still judged.
  const form = { login: 'admin@pizza.demo', password: 'demo' };
  const spellings = Array.from({ length: 40 }, (_, i) => `text/x-${i}`);
  for (let round = 0; round < 2; round++) {
    expect(api.validateRequest('createDraftDish', { contentType: 'application/json', body: margherita }).valid).toBe(
      true,
    );
    for (const contentType of spellings.slice(0, round === 0 ? 40 : 3))
      expect(api.validateRequest('createDraftDish', { contentType, body: margherita })).toMatchObject({
        valid: false,
        issues: [expect.objectContaining({ in: 'header', name: 'Content-Type' })],
      });
    expect(
      api.validateRequest('createSession', { contentType: 'application/x-www-form-urlencoded', body: form }).valid,
    ).toBe(true);
    expect(api.validateRequest('createSession', { contentType: 'multipart/form-data', body: form }).valid).toBe(true);
    expect(api.validateRequest('createSession', { contentType: 'application/json', body: form })).toMatchObject({
      valid: false,
      issues: [expect.objectContaining({ in: 'header', name: 'Content-Type' })],
    });
    expect(
      api.validateRequest('createSession', { contentType: 'application/x-www-form-urlencoded', body: { login: 1 } }),
    ).toMatchObject({ valid: false });
    const empty = api.validateRequest('createDraftDish', {
      contentType: 'Application/JSON; charset=utf-8',
      body: { draft_dish: {} },
    });
    expect(empty.valid).toBe(false);
    if (!empty.valid) expect(new Set(empty.issues.map((issue) => issue.in))).toEqual(new Set(['body']));
  }
});
