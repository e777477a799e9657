import { expect, test } from 'vitest';
import { createApiDescription } from '@restoapi/openapi';
import { demoSeed } from './demo-seed.js';

const api = createApiDescription();

test('every seeded resource matches its schema in the document', () => {
  const seed = demoSeed(new Date('2026-11-20T18:00:00Z'));
  const strip = <T extends object>(row: T, keys: string[]): Partial<T> =>
    Object.fromEntries(Object.entries(row).filter(([key]) => !keys.includes(key))) as Partial<T>;
  const checks: [string, unknown[]][] = [
    ['Organization', seed.organizations!.rows],
    ['Restaurant', seed.restaurants!.rows],
    ['Courier', seed.couriers!.rows],
    ['StaffMember', seed.staffMembers!.rows],
    ['DraftDish', (seed.draftDishes!.rows as object[]).map((d) => strip(d, ['availability']))],
    ['DeliveryZone', seed.deliveryZones!.rows],
    ['OrderItem', seed.orderItems!.rows],
    ['Buddy', seed.buddies!.rows],
    ['Payment', seed.payments!.rows],
    [
      'Order',
      (seed.orders!.rows as object[]).map((o) =>
        strip(o, [
          'organization_id',
          'delivery_zone_id',
          'secure_id',
          'carrier_id',
          'delivery',
          'external_id',
          'source',
          'takeaway',
          'used_bonuses',
          'status_changed_at',
        ]),
      ),
    ],
  ];
  for (const [schema, rows] of checks) {
    expect(rows.length, schema).toBeGreaterThan(0);
    for (const row of rows)
      expect(api.validateSchema(schema, row), `${schema} ${JSON.stringify(row).slice(0, 80)}`).toEqual({
        valid: true,
        value: undefined,
      });
  }
});

test('order totals add up from their items and delivery price', () => {
  const seed = demoSeed();
  const items = seed.orderItems!.rows as { order_id: number; price: string }[];
  for (const order of seed.orders!.rows as { id: number; total: string; delivery_price: string; final_sum: number }[]) {
    const cents = items
      .filter((i) => i.order_id === order.id)
      .reduce((sum, i) => sum + Math.round(Number(i.price) * 100), 0);
    expect((cents / 100).toFixed(2)).toBe(order.total);
    expect(Math.round(order.final_sum * 100)).toBe(cents + Math.round(Number(order.delivery_price) * 100));
  }
});

test('the world has two organizations, couriers, a configurable dish and orders in several statuses', () => {
  const seed = demoSeed();
  expect(seed.organizations!.rows).toHaveLength(2);
  const statuses = new Set((seed.orders!.rows as { status: string }[]).map((o) => o.status));
  expect(statuses.size).toBeGreaterThanOrEqual(5);
  const configurable = (seed.draftDishes!.rows as { options: unknown[] | null }[]).filter((d) => d.options?.length);
  expect(configurable.length).toBeGreaterThan(0);
});
