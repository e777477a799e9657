import type { MockStateJson, OrderRecord } from '../state/mock-state.js';
import { demoSeed } from './demo-seed.js';

const STATUSES = ['pending', 'accepted', 'cooking', 'ready', 'delivery', 'complete', 'cancelled'] as const;

/**
 * The demo world plus `count` generated orders (ids from 10001) spread over the four restaurants, the
 * couriers, clients and statuses, with scattered creation and delivery times (up to 28 hours before `now`): a
 * crowded service for list tests and for proving that a client's requests do not grow with the data.
 */
export function demoSeedWithOrders(count: number, now = new Date('2026-11-20T18:00:00Z')): MockStateJson {
  const state = demoSeed(now);
  const rows = state.orders!.rows as OrderRecord[];
  const template = rows[0]!;
  for (let i = 0; i < count; i++) {
    const id = 10001 + i;
    const restaurant = [11, 12, 21, 22][i % 4]!;
    const organization = restaurant < 20 ? 1 : 2;
    const courier = organization === 1 ? [501, 502, null][i % 3]! : [601, null][i % 2]!;
    // A stride coprime with the range scatters the times, so id order and time order differ.
    const created = new Date(now.getTime() - ((i * 7919) % 100_000) * 1000);
    const deliveryAt = new Date(created.getTime() + ((i * 31) % 120) * 60_000);
    rows.push({
      ...template,
      id,
      number: `${organization === 1 ? 'PP' : 'SS'}-${id}`,
      status: STATUSES[i % STATUSES.length]!,
      created_at: created.toISOString(),
      delivery_at: deliveryAt.toISOString(),
      pick_up_at: deliveryAt.toISOString(),
      restaurant_id: restaurant,
      organization_id: organization,
      delivery_zone_id: organization * 100 + (restaurant % 10),
      courier_id: courier,
      client_id: organization === 1 ? [7001, 7002][i % 2]! : 7003,
      courier_confirmed_at: null,
      restaurant_confirmed_at: null,
      links: { buddies: `/api/orders/${id}/buddies`, items: `/api/orders/${id}/items` },
    });
  }
  return state;
}
