import type { components } from '@restoapi/openapi';
import { ok, type HandlerMap } from '../engine/handler.js';
import { forbidden, notFound, unprocessable } from '../engine/http-error.js';
import { notEditableProblems } from '../model/editability.js';
import { seesRestaurant, type Actor } from '../session/actor.js';
import type { MockStateTables } from '../state/mock-state.js';

type Restaurant = components['schemas']['Restaurant'];

/** Fields the spec gives as not editable, plus the read-only flags (decided: 422 `not_editable` when different). */
const NOT_EDITABLE = ['id', 'organization_id', 'is_running', 'is_delivery'] as const;

/**
 * The API view of a restaurant: `is_running` and `is_delivery` are sent wherever
 * a restaurant appears (decided), so a record without them reads as running and delivering.
 */
export function restaurantView(restaurant: Restaurant): Restaurant & { is_running: boolean; is_delivery: boolean } {
  return { ...restaurant, is_running: restaurant.is_running ?? true, is_delivery: restaurant.is_delivery ?? true };
}

/**
 * The restaurant, or 404 when missing or outside the caller's scope. The actor's
 * restaurant set already encodes the scope: every restaurant for a dispatcher,
 * the organization's for an administrator or a courier, `restaurant_ids` for a manager.
 */
function visibleRestaurant(state: MockStateTables, actor: Actor, id: number): Restaurant {
  const restaurant = state.restaurants.get(id);
  if (!restaurant || !seesRestaurant(actor, id)) throw notFound('Restaurant', id);
  return restaurant;
}

/** `GET /api/restaurants`, `GET/PUT /api/restaurants/{id}` (Endpoints > Restaurants). */
export const restaurantHandlers: HandlerMap = {
  listRestaurants({ runtime, actor, query }) {
    const restaurants = runtime.state.restaurants
      .filter(
        (r) =>
          seesRestaurant(actor, r.id) &&
          (query.organization_id === undefined || r.organization_id === query.organization_id),
      )
      .sort((a, b) => a.id - b.id)
      .map(restaurantView);
    return ok({ restaurants, meta: { count: restaurants.length, total: restaurants.length } });
  },

  getRestaurant({ runtime, actor, params }) {
    // The spec's single-restaurant answer uses the plural root with one element.
    return ok({ restaurants: [restaurantView(visibleRestaurant(runtime.state, actor, params.id))] });
  },

  updateRestaurant({ runtime, actor, params, body }) {
    const restaurant = visibleRestaurant(runtime.state, actor, params.id);
    if (actor.type !== 'staff_member') {
      throw forbidden(
        `A ${actor.type.replace('_', ' ')} account may not change restaurants; only staff members of the organization may.`,
      );
    }
    const sent = body.restaurant as Partial<Restaurant>;
    const problems = notEditableProblems('/restaurant', sent, restaurantView(restaurant), NOT_EDITABLE);
    if (problems.length > 0) throw unprocessable(problems);
    const next: Restaurant = { ...restaurant };
    if (sent.name !== undefined) next.name = sent.name;
    if (sent.phone !== undefined) next.phone = sent.phone;
    if (sent.address !== undefined) next.address = sent.address;
    runtime.state.restaurants.put(next);
    return ok({ restaurants: [restaurantView(next)] });
  },
};
