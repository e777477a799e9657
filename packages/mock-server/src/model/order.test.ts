import { expect, test } from 'vitest';
import { idleDelivery } from './delivery.js';
import { orderRecord, type OrderFacts } from './order.js';

const facts: OrderFacts = {
  id: 5042,
  organizationName: 'Pizza Piccolo',
  delivery_time: 45,
  contact_phone: '+49 30 1234567',
  contact_name: 'Ada',
  description: '',
  change: 0,
  status: 'pending',
  created_at: '2026-03-01T12:00:00.000Z',
  courier_confirmed_at: null,
  restaurant_confirmed_at: null,
  delivery_asap: true,
  delivery_at: '2026-03-01T12:45:00.000Z',
  point: { lon: 13.431, lat: 52.4975 },
  address: { address: 'Wiener Straße 18', apartment: '4', floor: '2', city: 'Berlin' },
  payment_source: 'cash',
  totalCents: 2350,
  deliveryPriceCents: 250,
  restaurant_id: 101,
  client_id: 7001,
  courier_id: null,
  payment_id: null,
  organization_id: 1,
  delivery_zone_id: 201,
  secure_id: null,
  carrier_id: null,
  delivery: idleDelivery(),
  external_id: null,
  source: 'storefront',
  takeaway: false,
  used_bonuses: '0.00',
  status_changed_at: '2026-03-01T12:00:00.000Z',
};

test('an order record derives its number, times, point, address text and money from the facts', () => {
  const order = orderRecord(facts);
  expect(order).toMatchObject({
    number: 'PP-5042',
    transportation_time: 15,
    cooking_time: 30,
    pick_up_at: '2026-03-01T12:30:00.000Z',
    coordinates: 'POINT(13.431 52.4975)',
    latitude: 52.4975,
    longitude: 13.431,
    address_text: 'Wiener Straße 18, apartment 4, floor 2, Berlin',
    staircase: '',
    total: '23.50',
    delivery_price: '2.50',
    final_sum: 26,
    links: { buddies: '/api/orders/5042/buddies', items: '/api/orders/5042/items' },
  });
});

test('a kept number, a shorter road and an address fallback win over what would be derived', () => {
  const order = orderRecord({
    ...facts,
    number: 'OLD-1',
    delivery_time: 10,
    address: {},
    addressFallback: 'Takeaway: Pizza Piccolo Mitte, Torstraße 1',
  });
  expect(order.number).toBe('OLD-1');
  expect(order.transportation_time).toBe(10);
  expect(order.cooking_time).toBe(0);
  expect(order.address_text).toBe('Takeaway: Pizza Piccolo Mitte, Torstraße 1');
  expect(orderRecord({ ...facts, transportation_time: 0 }).cooking_time).toBe(45);
});
