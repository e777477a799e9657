import { expectTypeOf, test } from 'vitest';
import { createRawCarrierClient, createRawClient, type components } from '@restoapi/sdk';

const api = createRawClient({ baseUrl: 'http://localhost:4010', token: 'demo' });
const carrier = createRawCarrierClient({ baseUrl: 'http://localhost:4010' });
type Schemas = components['schemas'];

test('decimals the spec returns as strings are strings, nullable fields are nullable', () => {
  expectTypeOf<Schemas['Order']['total']>().toEqualTypeOf<string>();
  expectTypeOf<Schemas['Order']['delivery_price']>().toEqualTypeOf<string>();
  expectTypeOf<Schemas['DraftDish']['price']>().toEqualTypeOf<string>();
  expectTypeOf<Schemas['Order']['courier_confirmed_at']>().toEqualTypeOf<string | null>();
  expectTypeOf<Schemas['Order']['payment_source']>().toEqualTypeOf<'cash' | 'card' | 'courier_card'>();
});

test('a wrong field or a wrong enum value in a request fails to compile', () => {
  void api.POST('/api/draft_dishes', {
    // @ts-expect-error draft_category_id is required on create
    body: { draft_dish: { name: 'Margherita', price: '9.50', organization_id: 1 } },
  });
  void api.PUT('/api/orders/{id}/status', {
    // @ts-expect-error 'delivered' is not an order status (the carrier's word is not the main API's)
    params: { path: { id: 5001 }, query: { status: 'delivered' } },
  });
  void api.GET('/api/orders', {
    // @ts-expect-error sort_by takes only the documented keys
    params: { query: { sort_by: 'price' } },
  });
  void api.GET('/api/orders', {
    // @ts-expect-error there is no `restaurant` filter, only restaurant_id
    params: { query: { restaurant: 11 } },
  });
  const update: Schemas['OrganizationUpdate'] = {
    // @ts-expect-error social_network only takes vk, facebook, twitter, instagram
    organization: { social_network: { myspace: 'https://myspace.com/pizza' } },
  };
  void api.PUT('/api/organizations/{id}', { params: { path: { id: 1 } }, body: update });
  void api.PUT('/api/organizations/{id}', {
    params: { path: { id: 1 } },
    // @ts-expect-error a link is a URL string, not a number
    body: { organization: { social_network: { instagram: 42 } } },
  });
});

test('array filters accept arrays of ids', () => {
  void api.GET('/api/orders', {
    params: { query: { restaurant_id: [11, 12], courier_id: [501], status: ['delivery'] } },
  });
});

test('the carrier client only knows carrier paths and the delivery statuses', async () => {
  const { data } = await carrier.GET('/orders/{secure_id}', { params: { path: { secure_id: 'abc' } } });
  expectTypeOf(data!.order.order_status).toEqualTypeOf<Schemas['CarrierOrderStatus']>();
  void carrier.PUT('/orders/{secure_id}/delivery', {
    params: { path: { secure_id: 'abc' } },
    // @ts-expect-error 'complete' is an order status, not a delivery status
    body: { status: 'complete' },
  });
  // @ts-expect-error the main API's paths are not on the carrier client
  void carrier.GET('/api/orders');
});
