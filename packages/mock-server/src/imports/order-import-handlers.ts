import { ok, type HandlerMap } from '../engine/handler.js';
import { forbidden, notFound, tooLarge, unprocessable } from '../engine/http-error.js';
import { seesOrganization } from '../session/actor.js';
import { orderImportProblems, runOrderImport } from './order-import.js';

/** `POST /api/organizations/{id}/import/orders`: the synchronous order import (Order import rules 1–5). */
export const orderImportHandlers: HandlerMap = {
  importOrders({ runtime, actor, params, query, body }) {
    const organization = runtime.state.organizations.get(params.id);
    if (!organization || !seesOrganization(actor, params.id)) throw notFound('Organization', params.id);
    if (actor.type !== 'staff_member') {
      throw forbidden(
        `A ${actor.type.replace('_', ' ')} account may not import orders; staff members of the organization may.`,
      );
    }
    const limit = runtime.config.maxImportRecords;
    if (body.orders.length > limit) {
      throw tooLarge(
        `One import may carry at most ${limit} orders; this one has ${body.orders.length}. Split it into several requests.`,
        { pointer: '/orders' },
      );
    }
    // Checked for the whole body before any order is processed, so a structural mistake imports nothing.
    const problems = orderImportProblems(body.orders);
    if (problems.length > 0) throw unprocessable(problems);
    return ok({
      organization_import: runOrderImport(runtime, actor, organization, body.orders, query.existing ?? 'ignore'),
    });
  },
};
