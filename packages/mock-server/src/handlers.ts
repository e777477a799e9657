import type { HandlerMap } from './engine/handler.js';
import { carrierHandlers } from './carrier/carrier-handlers.js';
import { courierHandlers } from './couriers/courier-handlers.js';
import { importHandlers } from './imports/import-handlers.js';
import { menuHandlers } from './menu/menu-handlers.js';
import { organizationHandlers } from './organizations/organization-handlers.js';
import { restaurantHandlers } from './restaurants/restaurant-handlers.js';
import { sessionHandlers } from './session/session-handlers.js';
import { zoneHandlers } from './zones/zone-handlers.js';
import { orderHandlers } from './orders/order-handlers.js';
import { orderImportHandlers } from './imports/order-import-handlers.js';

/** Every operation the mock implements, by operationId (a test checks none of the document is missing). */
export const handlers: HandlerMap = {
  ...sessionHandlers,
  ...organizationHandlers,
  ...restaurantHandlers,
  ...courierHandlers,
  ...menuHandlers,
  ...importHandlers,
  ...zoneHandlers,
  ...orderHandlers,
  ...orderImportHandlers,
  ...carrierHandlers,
};
