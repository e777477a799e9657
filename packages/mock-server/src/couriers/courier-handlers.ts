import { ok, type HandlerMap } from '../engine/handler.js';
import { notFound } from '../engine/http-error.js';
import { seesCourier } from '../model/access.js';

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
