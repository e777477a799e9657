/** What the rules floors need to know of a running mock, read from its state (the bench runs it in process). */
import type { MockServer } from '../src/node.js';
import type { OrderRecord } from '../src/state/mock-state.js';
import { draftDishRulesFloor, type FloorCategory, type FloorSession } from './rules-floor-servers.js';
import type { FloorServer } from './floor-servers.js';

/** The organization an order belongs to, through its restaurant. */
export function organizationOfOrder(server: MockServer, orderId: number): number {
  const { state } = server.mock.runtime;
  const order = state.orders.get(orderId) as OrderRecord | undefined;
  const restaurant = order ? state.restaurants.get(order.restaurant_id) : undefined;
  if (!restaurant) throw new Error(`order ${orderId} has no restaurant in the mock`);
  return restaurant.organization_id;
}

/**
 * The rules floor of the draft dish for the staff member holding `token`, knowing the mock's organizations,
 * categories and their last menu places, its ids going on from the mock's next one; `others` sign in too.
 */
export async function dishRulesFloorOf(
  server: MockServer,
  token: string,
  others: readonly FloorSession[] = [],
): Promise<FloorServer> {
  const { state, config } = server.mock.runtime;
  const session = state.sessions.findWhere('token', token);
  const apiUser = session ? state.apiUsers.get(session.api_user_id) : undefined;
  const staff = apiUser?.account.type === 'staff_member' ? state.staffMembers.get(apiUser.account.id) : undefined;
  if (!staff) throw new Error('the rules floor of the draft dish needs a staff member’s token');
  const categories = new Map<number, FloorCategory>();
  for (const category of state.draftCategories.all())
    categories.set(category.id, { organizationId: category.organization_id, lastMenuOrder: 0 });
  for (const dish of state.draftDishes.all()) {
    const category = categories.get(dish.draft_category_id);
    if (category) category.lastMenuOrder = Math.max(category.lastMenuOrder, dish.menu_order);
  }
  return draftDishRulesFloor(
    [{ token, account: 'staff_member', organizationIds: [staff.organization_id] }, ...others],
    config.tokenTtlMs,
    categories,
    new Set(state.organizations.all().map((o) => o.id)),
    state.draftDishes.peekNextId(),
  );
}
