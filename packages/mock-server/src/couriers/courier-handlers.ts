import type { components } from '@restoapi/openapi';
import { ok, type HandlerMap } from '../engine/handler.js';
import { notFound } from '../engine/http-error.js';
import { seesOrganization, type Actor } from '../session/actor.js';

type Courier = components['schemas']['Courier'];

/**
 * Whether the account may see a courier: a dispatcher every courier, a staff
 * member the couriers of its organization, a courier only its own record.
 */
export function seesCourier(actor: Actor, courier: Courier): boolean {
  if (actor.type === 'courier') return actor.courierId === courier.id;
  return seesOrganization(actor, courier.organization_id);
}

/** `GET /api/couriers` and `GET /api/couriers/{id}`: read-only, as decided. */
export const courierHandlers: HandlerMap = {
  listCouriers({ runtime, actor, query }) {
    const couriers = runtime.state.couriers
      .filter(
        (c) =>
          seesCourier(actor, c) && (query.organization_id === undefined || c.organization_id === query.organization_id),
      )
      .sort((a, b) => a.id - b.id);
    return ok({ couriers, meta: { count: couriers.length, total: couriers.length } });
  },

  getCourier({ runtime, actor, params }) {
    const courier = runtime.state.couriers.get(params.id);
    if (!courier || !seesCourier(actor, courier)) throw notFound('Courier', params.id);
    return ok({ courier });
  },
};
