import { demoSeedWithOrders } from '@restoapi/mock-server';
import type { Actor } from '../../src/session/actor.js';

/** The demo world plus `count` generated orders (see `demoSeedWithOrders`), for list tests. */
export const seedWithOrders = demoSeedWithOrders;

/** Accounts for list tests that call `listOrders` directly: only what `orderScope` and `seesOrder` read. */
export const listActors = {
  dispatcher: { type: 'dispatcher', restaurantIds: 'all', organizationIds: 'all' } as unknown as Actor,
  staffOf: (...restaurants: number[]) =>
    ({ type: 'staff_member', restaurantIds: new Set(restaurants), organizationIds: new Set([1]) }) as unknown as Actor,
  courier: (courierId: number) =>
    ({
      type: 'courier',
      courierId,
      restaurantIds: new Set([11, 12]),
      organizationIds: new Set([1]),
    }) as unknown as Actor,
};
