/**
 * An independent implementation of the API for tests: the mock behind a `Request → Response` wrapper
 * that decides differently from openapi/ wherever the spec says "not shown" (each difference a named,
 * switchable departure). A correct service, so the contract suite's `spec` profile must pass it with
 * warnings only and `full` must fail it, naming each decision. Shared by the tests of every package.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SESSION_HEADER, createMock, type Mock, type MockOptions } from '@restoapi/mock-server';
import {
  createApiDescription,
  createDepartureClassifier,
  getAtPointer,
  listDecisions,
  openapiDocument,
  type ApiDescription,
  type DepartureClassifier,
  type ValidationIssue,
} from '@restoapi/openapi';
import { toFetchRequest, writeFetchResponse } from '@restoapi/mock-server/node';

/** One way the independent service decides differently, and the decision of openapi/ it departs from. */
export interface Departure {
  /** What the service does instead. */
  does: string;
  /** What kind of "not shown" it is. */
  area:
    | 'status'
    | 'error body'
    | 'enum name'
    | 'body shape'
    | 'numbering'
    | 'format'
    | 'limit'
    | 'ordering'
    | 'header'
    | 'media type'
    | 'request shape'
    | 'endpoint'
    | 'refusal';
  /** JSON Pointer of the `x-decision` it departs from (as in openapi/DECISIONS.md). */
  decision: string;
  /** Other markers the same choice departs from (a create and an update shape, two endpoints of one kind). */
  also?: readonly string[];
  /** Why `spec` gives no warning for it (only a full-profile test checks its decision). */
  silentUnderSpec?: string;
}

/** Every departure of the independent service, by name. */
export const DEPARTURES = {
  'publish-204': {
    does: '`POST /api/organizations/{id}/publish` answers 204 with no body',
    area: 'status',
    decision: '/paths/~1api~1organizations~1{id}~1publish/post/responses/200',
  },
  'status-204': {
    does: '`PUT /api/orders/{id}/status` answers 204 with no body',
    area: 'status',
    decision: '/paths/~1api~1orders~1{id}~1status/put/responses/200',
  },
  'carrier-delivery-204': {
    does: "the carrier's `PUT /api-delivery/orders/{secure_id}/delivery` answers 204 with no body",
    area: 'status',
    decision: '/paths/~1api-delivery~1orders~1{secure_id}~1delivery/put/responses/200',
  },
  'zone-created-200': {
    does: '`POST /api/delivery_zones` answers 200 (not 201) with the created zone',
    area: 'status',
    decision: '/paths/~1api~1delivery_zones/post/responses/201',
  },
  'busy-200': {
    does: 'a menu or client import while one runs answers 200 with the busy object (no `errors`), not 409',
    area: 'status',
    decision: '/components/responses/ImportBusy',
  },
  'invalid-400': {
    does: 'invalid fields are refused with 400 instead of 422',
    area: 'status',
    decision: '/components/responses/UnprocessableEntity',
  },
  'error-object': {
    does: 'error bodies are `{error: {code, message, field}}` instead of the `errors` array',
    area: 'error body',
    decision: '/components/schemas/ErrorBody',
  },
  'job-finished': {
    does: 'finished import jobs say `job_status: "finished"` instead of `done`',
    area: 'enum name',
    decision: '/components/schemas/ImportJobStatus',
  },
  'session-body': {
    does: '`GET /api/session` answers `{session: {token, expires_at, user, account}}`',
    area: 'body shape',
    decision: '/paths/~1api~1session/get/responses/200',
  },
  'days-from-sunday': {
    does: 'timetable days count from 0 = Sunday (1 = Monday … 6 = Saturday); 7 is refused',
    area: 'numbering',
    decision: '/components/schemas/Timetable/properties/day',
  },
  'numeric-job-id': {
    does: 'import `job_id`s are integers',
    area: 'format',
    decision: '/components/schemas/ImportJobId',
  },
  'per-page-50': {
    does: 'orders come 10 per page by default, at most 50 (`per_page` above 50 is refused)',
    area: 'limit',
    decision: '/paths/~1api~1orders/get/parameters/1',
  },
  'dishes-newest-first': {
    does: '`GET /api/draft_dishes` lists dishes newest (highest id) first',
    area: 'ordering',
    decision: '/paths/~1api~1draft_dishes/get',
  },
  'bearer-challenge': {
    does: '401 answers challenge with `WWW-Authenticate: Bearer realm="api"`',
    area: 'header',
    decision: '/components/headers/WWW-Authenticate',
  },
  'zone-wrapped': {
    does: 'zone create and update bodies must sit under `delivery_zone` (Data format rules 3); a bare zone is refused',
    area: 'request shape',
    decision: '/components/schemas/DeliveryZoneCreate',
    also: ['/components/schemas/DeliveryZoneUpdate'],
  },
  'dish-price-number': {
    does: 'a draft dish `price` is taken only as a JSON number; a string price is refused',
    area: 'request shape',
    decision: '/components/schemas/DishPriceInput',
  },
  'dish-weight-number': {
    does: 'a draft dish `weight` is taken only as a JSON number (as in the menu import) or `null`; a string weight is refused',
    area: 'request shape',
    decision: '/components/schemas/DishWeightInput',
  },
  'dish-weight-string': {
    does: 'a draft dish `weight` is taken only as a decimal string (as GET returns it) or `null`; a numeric weight is refused',
    area: 'request shape',
    decision: '/components/schemas/DishWeightInput',
    silentUnderSpec:
      'the spec tests send a weight as a string, as GET returns it; only full tests send a number (the other shape the suite retries on a refusal)',
  },
  'dishes-path-as-written': {
    does: 'draft dishes answer only on the path form the spec writes: `GET /api/draft_dishes` and `POST /api/draft_dishes/` (POST without the slash 405, GET with it 404)',
    area: 'endpoint',
    decision: '/paths/~1api~1draft_dishes',
  },
  'api-key-header': {
    does: 'an API key is taken only in the `X-Api-Key` header of `POST /api/session`, not as the `api_key` parameter (the harness issues `key-<login>` to the demo users)',
    area: 'request shape',
    decision: '/components/parameters/ApiKeyCredential',
  },
  'buddies-named': {
    does: 'an imported buddy needs the `id` and `name` the spec shows beside `items`; one without is refused',
    area: 'request shape',
    decision: '/components/schemas/OrderImportBuddy',
  },
  'no-couriers': {
    does: 'has no courier endpoints: `/api/couriers` and `/api/couriers/{id}` answer 404',
    area: 'endpoint',
    decision: '/paths/~1api~1couriers/get',
    also: ['/paths/~1api~1couriers~1{id}/get'],
  },
  'no-order-links': {
    does: "has no endpoints at an order's `items` and `buddies` links: they answer 501 Not Implemented",
    area: 'endpoint',
    decision: '/paths/~1api~1orders~1{id}~1items/get',
    also: ['/paths/~1api~1orders~1{id}~1buddies/get'],
  },
  'no-category-create': {
    does: '`POST /api/draft_categories` answers 405: categories come only from the menu import',
    area: 'endpoint',
    decision: '/paths/~1api~1draft_categories/post',
  },
  'no-zone-delete': {
    does: '`DELETE /api/delivery_zones/{id}` answers 405: zones are never deleted',
    area: 'endpoint',
    decision: '/paths/~1api~1delivery_zones~1{id}/delete',
  },
  'coerce-names': {
    does: 'a number or boolean sent for a text field is taken as its string (`name: 42` becomes "42"), not refused',
    area: 'refusal',
    decision: '/components/responses/UnprocessableEntity',
  },
  'lenient-paging': {
    does: 'an unparsable `page` or `per_page` (`page=1.5`) is ignored, not refused',
    area: 'refusal',
    decision: '/components/responses/BadRequest',
  },
  'no-request-id': {
    does: 'answers carry no `X-Request-Id` header',
    area: 'header',
    decision: '/components/headers/X-Request-Id',
    silentUnderSpec: 'the header is optional in the document; only the decided headers test of full requires it',
  },
  'session-201': {
    does: '`POST /api/session` answers 201 Created',
    area: 'status',
    decision: '/paths/~1api~1session/post/responses/200',
  },
  'avatar-large': {
    does: 'avatars carry one more size, `large`',
    area: 'body shape',
    decision: '/components/schemas/Avatar',
  },
  'prices-three-decimals': {
    does: 'prices as strings carry three decimals (`"9.500"`)',
    area: 'format',
    decision: '/components/schemas/DecimalString',
  },
  'zone-money-strings': {
    does: "a zone's `free_delivery_price` and `minimal_order_price` are decimal strings",
    area: 'format',
    decision: '/components/schemas/DeliveryZone/properties/free_delivery_price',
    also: ['/components/schemas/DeliveryZone/properties/minimal_order_price'],
  },
  'social-links-null': {
    does: 'an organization shows a network without a group as `null` in `social_network`',
    area: 'format',
    decision: '/components/schemas/SocialNetworkLink',
  },
  'dishes-hidden-by-default': {
    does: 'a dish created without `is_hidden` is hidden',
    area: 'body shape',
    decision: '/components/schemas/DraftDishCreate',
    silentUnderSpec: 'the suite sends `is_hidden` itself; only the decided defaults test of full reads the default',
  },
  'comment-as-note': {
    does: "an imported order's `comment` is kept as an internal note, not as the order's `description`",
    area: 'body shape',
    decision: '/components/schemas/OrderImportOrder/allOf/0/properties/comment',
  },
  'menu-order-fixed': {
    does: "a category's `menu_order` is not editable: PUT ignores it",
    area: 'body shape',
    decision: '/components/schemas/DraftCategoryUpdate',
  },
  'photo-later': {
    does: 'an uploaded photo shows only from the second read on (it is processed after the upload)',
    area: 'body shape',
    // The uploads' decisions say when a photo shows (the sizes are made before the answer: at once); the photo's
    // own, that null means none was uploaded.
    decision: '/paths/~1api~1draft_dishes~1{id}~1photo/put',
    also: [
      '/paths/~1api~1draft_categories~1{id}~1photo/put',
      '/components/schemas/DraftDish/properties/photo',
      '/components/schemas/DraftCategory/properties/photo',
    ],
  },
  'json-vnd-api': {
    does: "JSON answers carry JSON:API's media type, `Content-Type: application/vnd.api+json`",
    area: 'media type',
    decision: '/x-json-media-type',
  },
  'unassign-refused': {
    does: '`PUT /api/orders/{id}` refuses `courier_id: null` with 422 (the spec gives courier_id as an integer): a courier once assigned is never taken off',
    area: 'request shape',
    decision: '/components/schemas/Order/properties/courier_id',
  },
  'sms-option-named': {
    does: 'the query option that switches the SMS off is `sms=off`; `send_sms` is ignored (the SMS goes out)',
    area: 'request shape',
    decision: '/components/parameters/SendSms',
    silentUnderSpec: 'only the decided order actions test of full sends the option and reads the SMS outbox',
  },
  'per-page-clamped': {
    does: 'orders come at most 20 per page: a larger `per_page` is taken as 20 (and `meta.per_page` says 20)',
    area: 'limit',
    decision: '/paths/~1api~1orders/get/parameters/1',
    silentUnderSpec:
      "under spec the suite reads the service's own page size and asks for no per_page above 20 (no test pages through everything); only full asks for the decided maximum, 100",
  },
  'count-this-page': {
    does: "an order list's `meta.count` counts the orders on this page, like the generic collection `count`",
    area: 'body shape',
    decision: '/components/schemas/OrderListMeta/properties/count',
    silentUnderSpec:
      'the spec tests read meta.count only where the orders fit on one page, where both meanings agree; a full test counts over all pages',
  },
  'categories-newest-first': {
    does: '`GET /api/draft_categories` lists categories newest (highest id) first, whatever their `menu_order`',
    area: 'ordering',
    decision: '/paths/~1api~1draft_categories/get',
  },
  'weight-zero': {
    does: 'a dish without a known weight shows `weight: "0"`, not `null`',
    area: 'format',
    decision: '/components/schemas/DraftDish/properties/weight',
    silentUnderSpec:
      'the spec does not say what a dish without a weight shows; only the decided defaults test of full reads it',
  },
  'read-only-ignored': {
    does: '`PUT /api/restaurants/{id}` takes `is_running` and `is_delivery` without a word and ignores them (they stay as they were), rather than refusing them with 422',
    area: 'refusal',
    decision: '/components/schemas/Restaurant/properties/is_running',
    also: ['/components/schemas/Restaurant/properties/is_delivery'],
    silentUnderSpec:
      'the spec leaves their editability unspecified: only the decided restaurant update test of full sends them',
  },
  'any-time-zone': {
    does: 'a zone takes any time zone name and shows it as sent; a name it does not know reads the hours in UTC (no 422)',
    area: 'refusal',
    decision: '/components/schemas/DeliveryZone/properties/timezone',
    silentUnderSpec: 'the spec tests send IANA names only; only the decided zone test of full sends an unknown one',
  },
  'area-holes': {
    does: 'a zone area may have holes: a `POLYGON` with inner rings (still one connected region without self-intersections) is taken and shown as sent',
    area: 'refusal',
    decision: '/components/schemas/DeliveryZone/properties/area',
    silentUnderSpec:
      'the spec tests send simple polygons only; only the decided zone test of full sends one with a hole',
  },
  'hours-in-utc': {
    does: "a zone's opening hours are read in UTC, as the timestamps' `Z` says, not in the zone's `timezone` (kept and shown as sent; the seed's zones keep their reading)",
    area: 'numbering',
    decision: '/components/schemas/Timetable',
    silentUnderSpec:
      'the spec does not say in which zone the time of day counts; only the decided opening hours test of full places orders around it',
  },
  'delivery-skips': {
    does: 'a carrier may report a later delivery status directly (`idle` → `delivering` or `delivered`): the steps between are taken with it, main order moves included',
    area: 'refusal',
    decision: '/components/schemas/DeliveryStatus',
    silentUnderSpec: 'the spec tests move a delivery step by step; only the decided carrier test of full tries a skip',
  },
  'total-all-records': {
    does: "a collection's `meta.total` counts every record of the kind the service holds, not only those the caller can see (`count` stays the records in the answer)",
    area: 'body shape',
    decision: '/components/schemas/CollectionMeta',
    silentUnderSpec:
      'a count either way; only the decided collection test of full compares the counts with the records',
  },
  'ids-by-value': {
    does: 'an id in a path or query is read by its numeric value, as `Number()` reads it: `01`, `+1`, `1.0`, `0x1` and `1e3` name ids 1 and 1000',
    area: 'refusal',
    decision: '/components/schemas/Id',
    silentUnderSpec: 'the spec tests write ids canonically; only the decided negative tests of full send another form',
  },
  'configurator-rounded': {
    does: 'a configurator price with more than two decimals is rounded to cents, and a fractional `min` or `max` is rounded down, rather than refused',
    area: 'refusal',
    decision: '/components/schemas/ConfiguratorPrice',
    also: ['/components/schemas/ConfiguratorCount'],
    silentUnderSpec:
      'a fractional count is a wrong type the spec tests take leniency for (a warning naming UnprocessableEntity); only the decided configurator test of full names these decisions',
  },
  'dispatcher-imports': {
    does: 'a dispatcher may import menus, clients and orders of any organization and follow the imports (it handles their orders); couriers are still refused',
    area: 'refusal',
    decision: '/paths/~1api~1organizations~1{id}~1import~1menu/post',
    also: [
      '/paths/~1api~1organizations~1{id}~1import~1menu/get',
      '/paths/~1api~1organizations~1{id}~1import~1clients/post',
      '/paths/~1api~1organizations~1{id}~1import~1clients/get',
      '/paths/~1api~1organizations~1{id}~1import~1orders/post',
    ],
    silentUnderSpec:
      'the spec does not say who may import, so its tests import as a staff member only; the decided import tests of full try a dispatcher',
  },
  'dispatcher-confirms': {
    does: "a dispatcher may confirm an order on the restaurant's behalf (`restaurant_confirmed_at` is set)",
    area: 'refusal',
    decision: '/paths/~1api~1orders~1{id}~1confirm/put',
    silentUnderSpec:
      'the spec names the confirming parties (a restaurant account, the courier), so its tests confirm as those; only the decided status test of full tries a dispatcher',
  },
  'import-pending-only': {
    does: 'an imported order may only be `pending` (the one status the spec shows): an import with another status is refused with 422',
    area: 'request shape',
    decision: '/components/schemas/OrderImportStatus',
  },
  'empty-orders-answered': {
    does: 'an order import with an empty `orders` list answers 200 with an empty `organization_import`, not 422',
    area: 'refusal',
    decision: '/components/schemas/OrderImport/properties/orders',
    silentUnderSpec: 'the spec tests import at least one order; only the decided order import test of full sends none',
  },
  'clients-at-least-one': {
    does: 'a client import needs at least one client: an empty `clients` list is refused with 422',
    area: 'request shape',
    decision: '/components/schemas/ClientImport/properties/clients',
    silentUnderSpec:
      'the spec tests import at least one client; only the decided client import test of full sends an empty list',
  },
  'carrier-finished-gone': {
    does: 'the carrier API forgets an order once it is complete or cancelled: its `secure_id` answers 404',
    area: 'endpoint',
    decision: '/paths/~1api-delivery~1orders~1{secure_id}/get',
    silentUnderSpec:
      'the spec tests never read a finished order through the carrier API; the decided carrier test and models of full do',
  },
  'carrier-repeat-409': {
    does: "the carrier's `PUT …/delivery` refuses to repeat the current delivery status with 409 (the update changes nothing)",
    area: 'refusal',
    decision: '/paths/~1api-delivery~1orders~1{secure_id}~1delivery/put',
    silentUnderSpec: 'the spec tests never repeat a delivery status; only the decided carrier test of full does',
  },
  'callbacks-with-body': {
    does: 'callbacks carry the event in a JSON body too (the same parameters as the query)',
    area: 'body shape',
    decision: '/webhooks/order_created/post',
    also: ['/webhooks/order_status_changed/post'],
    silentUnderSpec:
      'the spec shows the query parameters only: the suite reads those; only a decided test of full reads the body',
  },
  'callback-extra-kind': {
    does: 'a third event kind, `order_changed`, is sent beside every `order_status_changed`',
    area: 'enum name',
    decision: '/components/schemas/CallbackEvent',
    silentUnderSpec:
      'the suite looks for the events it expects and ignores others; only a decided test of full lists every kind',
  },
  'callback-carrier-status': {
    does: "`order_status_changed` callbacks give the status as the carrier view names it (`confirmed`, `delivering`…), not the main API's",
    area: 'enum name',
    decision: '/components/schemas/OrderStatusChangedEvent/properties/status',
  },
  'from-scratch-every-client': {
    does: '`from_scratch=true` deletes every client of the organization, those the storefront registered too: an imported order naming one by `client_id` then ends with an error',
    area: 'body shape',
    decision: '/paths/~1api~1organizations~1{id}~1import~1clients/post/parameters/0',
    silentUnderSpec:
      'the spec tests name by client_id no client the storefront registered; only the decided from_scratch test of full does',
  },
  'empty-menu-import': {
    does: 'a menu import with an empty `dishes` list is taken: it empties the menu (the job imports a placeholder dish, which the service deletes once the job is done)',
    area: 'refusal',
    decision: '/components/schemas/MenuImport/properties/dishes',
    silentUnderSpec: 'the spec tests import at least one dish; only the decided menu import test of full sends none',
  },
} as const satisfies Record<string, Departure>;

/** The name of one departure. */
export type DepartureName = keyof typeof DEPARTURES;

/** Every departure name, in the order of {@link DEPARTURES}. */
export const DEPARTURE_NAMES = Object.keys(DEPARTURES) as DepartureName[];

/**
 * Departures that contradict another (the one named): both on would refuse every dish weight. A service takes
 * one of them; an all-at-once run leaves these out.
 */
export const CONTRADICTING: Readonly<Partial<Record<DepartureName, DepartureName>>> = {
  'dish-weight-string': 'dish-weight-number',
};

/**
 * The departures of the first harness: answers that differ (statuses, error bodies, enum names, day numbering,
 * paging), while every request a client sends today is still accepted. The default of
 * {@link createIndependentService}, since the SDK's, carrier kit's and examples' tests run against it as a second
 * implementation; the later departures (request shapes, missing "not shown" endpoints, one-choice answers) are
 * opted into by the harness's own tests.
 */
export const ANSWER_DEPARTURES: readonly DepartureName[] = [
  'publish-204',
  'status-204',
  'carrier-delivery-204',
  'zone-created-200',
  'busy-200',
  'invalid-400',
  'error-object',
  'job-finished',
  'session-body',
  'days-from-sunday',
  'numeric-job-id',
  'per-page-50',
  'dishes-newest-first',
  'bearer-challenge',
];

/**
 * A departure generated from the document's markers: one mechanism applied to every marker of its kind, so the
 * harness covers the decisions rather than a sample of them. `success status`: an operation whose success
 * status is decided answers another success status (201 or 202 as 200, 200 as 204 with no body, or as 201
 * for a POST, 204 as 200 with an empty object). `error status`: a decided error answer comes with another 4xx.
 * `refusal`: what a decision refuses in requests (an unknown field of a decided body, a value outside a decided
 * list of a query parameter) is let through instead: the field dropped, the parameter ignored. `answer value`:
 * a decided record or value of the answers is written another way ({@link ANSWER_CHANGES}).
 */
export interface FamilyDeparture extends Departure {
  family: 'success status' | 'error status' | 'refusal' | 'answer value';
  /** The operations whose tests show it. */
  probe: readonly string[];
  /** The answers it changes: their method and path (none for a refusal). */
  sites: readonly { method: string; path: RegExp }[];
  /** The status it changes, and the status it answers instead (0 for a refusal: no status is changed). */
  from: number;
  to: number;
  /** For an answer value: the test of `full` that fails naming it, the cheapest of them. */
  shows?: string;
}

/** The other success status a service could choose for a decided one. */
const OTHER_SUCCESS: Readonly<Record<number, number>> = { 200: 204, 201: 200, 202: 200, 204: 200 };

/** The other 4xx a service could choose for each decided error answer (the spec shows no error status). */
const OTHER_ERROR: Readonly<Record<string, number>> = {
  Conflict: 422,
  Forbidden: 404,
  NotFound: 403,
  Unauthorized: 403,
  InvalidCredentials: 403,
  UnsupportedMediaType: 400,
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** A path template of the document as a pattern of request paths (`{id}` is one segment; a trailing slash is allowed). */
function pathPattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

/** The generated departures, by name, from the markers no hand-made departure covers. */
function familyDepartures(): Record<string, FamilyDeparture> {
  type Operation = { operationId?: string; responses?: Record<string, { $ref?: string }> };
  const paths = (openapiDocument as unknown as { paths: Record<string, Record<string, Operation>> }).paths;
  const taken = new Set<string>(
    Object.values(DEPARTURES as Record<string, Departure>).flatMap((d) => [d.decision, ...(d.also ?? [])]),
  );
  const out: Record<string, FamilyDeparture> = {};
  for (const { pointer } of listDecisions(openapiDocument)) {
    if (taken.has(pointer)) continue;
    const success = /^\/paths\/([^/]+)\/(get|put|post|delete)\/responses\/(2\d\d)$/.exec(pointer);
    if (success) {
      const path = success[1]!.replace(/~1/g, '/').replace(/~0/g, '~');
      const method = success[2]!.toUpperCase();
      const from = Number(success[3]);
      const to = method === 'POST' && from === 200 ? 201 : OTHER_SUCCESS[from];
      const operationId = paths[path]?.[success[2]!]?.operationId;
      if (!to || !operationId) continue;
      const body = to === 204 ? ', with no body' : from === 204 ? ', with an empty JSON object' : '';
      out[`other-status:${operationId}`] = {
        family: 'success status',
        area: 'status',
        decision: pointer,
        does: `\`${method} ${path}\` answers ${to} instead of ${from}${body}`,
        probe: [operationId],
        sites: [{ method, path: pathPattern(path) }],
        from,
        to,
      };
      continue;
    }
    const error = /^\/components\/responses\/([^/]+)$/.exec(pointer);
    const to = error ? OTHER_ERROR[error[1]!] : undefined;
    if (!error || !to) continue;
    const ref = `#/components/responses/${error[1]}`;
    const sites: { method: string; path: RegExp }[] = [];
    const probe = new Set<string>();
    let from = 0;
    for (const [path, item] of Object.entries(paths))
      for (const method of METHODS)
        for (const [status, response] of Object.entries(item[method]?.responses ?? {}))
          if (response.$ref === ref) {
            sites.push({ method: method.toUpperCase(), path: pathPattern(path) });
            probe.add(item[method]!.operationId!);
            from = Number(status);
          }
    if (!sites.length) continue;
    out[`other-error:${error[1]}`] = {
      family: 'error status',
      area: 'status',
      decision: pointer,
      does: `answers ${to} where the document decided ${from} (${error[1]})`,
      silentUnderSpec:
        'the spec shows no error status: its tests take any 4xx for a refusal, only full expects this one',
      probe: [...probe],
      sites,
      from,
      to,
    };
  }
  for (const [pointer, change] of Object.entries(ANSWER_CHANGES)) {
    if (taken.has(pointer)) continue;
    out[`answer:${shortName(pointer)}`] = {
      family: 'answer value',
      area: 'format',
      decision: pointer,
      does: change.does,
      probe: change.probe,
      shows: change.shows,
      ...(change.silentUnderSpec ? { silentUnderSpec: change.silentUnderSpec } : {}),
      sites: [],
      from: 0,
      to: 0,
    };
  }
  for (const [pointer, operations] of lenientSites()) {
    if (taken.has(pointer)) continue;
    const where = listDecisions(openapiDocument).find((d) => d.pointer === pointer)!.where;
    out[`lenient:${shortName(pointer)}`] = {
      family: 'refusal',
      area: 'refusal',
      decision: pointer,
      does: `lets through what the document refuses at ${where}: an unknown field is dropped, a value outside the list of an optional field or query parameter ignored`,
      silentUnderSpec:
        'the spec does not state these refusals: under spec the suite sends no unknown field or undocumented value; the decided negative tests of full do',
      probe: [...operations],
      sites: [],
      from: 0,
      to: 0,
    };
  }
  return out;
}

/**
 * Another way of writing a decided record or value in every answer that carries it: one entry per marker,
 * applied by one mechanism (every object of an answer that holds `key` is given to `change`).
 */
interface AnswerChange {
  does: string;
  /** The operations whose tests read it. */
  probe: readonly string[];
  /** The test of `full` that fails naming the decision, the cheapest of them (the harness's check runs it). */
  shows: string;
  silentUnderSpec?: string;
  key: string;
  /** Writes `holder` (an object of an answer that holds `key`) this service's way; `mock` holds its records. */
  change(holder: Json, mock: Mock): void;
  /** How the service reads back what it wrote another way (a token it handed out). */
  request?(request: Request, url: URL): Request;
}

/** Writes `field` of each record of `list` as a JSON number where it is a string. */
function stringsToNumbers(list: unknown, field: string): void {
  for (const item of Array.isArray(list) ? list : [])
    if (isRecord(item) && typeof item[field] === 'string') item[field] = Number(item[field]);
}

/** The `answer value` departures, by marker. */
const ANSWER_CHANGES: Readonly<Record<string, AnswerChange>> = {
  '/components/schemas/Error/properties/status': {
    does: "error objects give their `status` as a number (`422`), not as the answer's status in a string",
    probe: ['createDraftDish'],
    shows: 'menu.draft-dish-required-fields',
    key: 'errors',
    change: (holder) => stringsToNumbers(holder.errors, 'status'),
  },
  '/components/schemas/Delivery': {
    does: 'a delivery block leaves out the fields the carrier has not sent yet, instead of showing them as `null`',
    probe: ['getCarrierOrder'],
    shows: 'schema.getCarrierOrder',
    key: 'delivery',
    change: (holder) => {
      const delivery = holder.delivery;
      if (isRecord(delivery) && 'status' in delivery)
        for (const [name, value] of Object.entries(delivery)) if (value === null) delete delivery[name];
    },
  },
  '/components/schemas/MenuPublication': {
    does: 'a publication\'s `version` is a string (`"3"`)',
    probe: ['publishMenu'],
    shows: 'schema.publishMenu',
    key: 'version',
    change: (holder) => {
      if ('published_at' in holder && typeof holder.version === 'number') holder.version = String(holder.version);
    },
  },
  '/components/schemas/ImportJobState': {
    does: 'the state of an import with no job running says `status: "ready"`, not `idle`',
    probe: ['getMenuImport', 'getClientImport'],
    shows: 'schema.getMenuImport',
    key: 'status',
    change: (holder) => {
      if ('job_percent' in holder && holder.status === 'idle') holder.status = 'ready';
    },
  },
  '/components/schemas/OrderItem': {
    does: "an order item's prices (`price`, `item_price`) are JSON numbers, not decimal strings",
    probe: ['listOrderItems'],
    shows: 'schema.listOrderItems',
    key: 'item_price',
    change: (holder) => {
      if ('buddy_id' in holder)
        for (const name of ['price', 'item_price'])
          if (typeof holder[name] === 'string') holder[name] = Number(holder[name]);
    },
  },
  '/components/schemas/Buddy': {
    does: "a buddy's `total` is a JSON number, not a decimal string",
    probe: ['listOrderBuddies'],
    shows: 'schema.listOrderBuddies',
    key: 'item_ids',
    change: (holder) => {
      if (typeof holder.total === 'string') holder.total = Number(holder.total);
    },
  },
  '/components/schemas/DishWeight': {
    does: 'a dish weight is written with three decimals (`"450.000"`)',
    probe: ['getDraftDish'],
    shows: 'schema.getDraftDish',
    key: 'weight',
    change: (holder) => {
      if ('draft_category_id' in holder && typeof holder.weight === 'string' && /^\d+$/.test(holder.weight))
        holder.weight = `${holder.weight}.000`;
    },
  },
  '/components/schemas/SessionResponse/properties/meta/properties/token': {
    does: 'session tokens carry a version prefix (`v1.<43 base64url characters>`), and are taken back with it',
    probe: ['createSession', 'getSession'],
    shows: 'schema.createSession',
    key: 'token',
    change: (holder) => {
      if ('expires_at' in holder && typeof holder.token === 'string') holder.token = `v1.${holder.token}`;
    },
    request: (request, url) => {
      const prefixed = /v1\.(?=[A-Za-z0-9_-]{43})/g;
      const token = url.searchParams.get('token');
      if (token !== null) url.searchParams.set('token', token.replace(prefixed, ''));
      const headers = new Headers(request.headers);
      const authorization = headers.get('authorization');
      if (authorization) headers.set('authorization', authorization.replace(prefixed, ''));
      return new Request(url, { method: request.method, headers, body: request.body, duplex: 'half' } as RequestInit);
    },
  },
  '/components/schemas/OrderImportResult/properties/errors': {
    does: "an imported order's errors point from the body's root (`/orders/0/client_id`), not from the order",
    probe: ['importOrders'],
    shows: 'imports.orders-decided',
    silentUnderSpec:
      'a pointer is any string to the schema; only the decided order import test of full reads where it points',
    key: 'organization_import',
    change: (holder) => {
      const results = Array.isArray(holder.organization_import) ? holder.organization_import : [];
      results.forEach((result, index) => {
        for (const error of isRecord(result) && Array.isArray(result.errors) ? result.errors : [])
          if (isRecord(error) && isRecord(error.source) && typeof error.source.pointer === 'string')
            error.source.pointer = `/orders/${index}${error.source.pointer}`;
      });
    },
  },
  '/components/schemas/CourierPosition': {
    does: "a courier's last known position gives no `updated_at`",
    probe: ['getCourier', 'listCouriers', 'updateCarrierDelivery'],
    shows: 'stateful.orders',
    silentUnderSpec:
      'a courier has a position only after a carrier reports one; only the model of full does, and reads the couriers after it',
    key: 'last_known_position',
    change: (holder) => {
      if (isRecord(holder.last_known_position)) delete holder.last_known_position.updated_at;
    },
  },
  '/components/schemas/DraftDish/properties/external_id': {
    does: 'a dish without an `external_id` shows it as an empty string, not `null`',
    probe: ['createDraftDish', 'getDraftDish'],
    shows: 'menu.decided-create-and-delete',
    silentUnderSpec:
      'an empty string is a string, as the spec gives the field; only the decided defaults test of full reads it',
    key: 'external_id',
    change: (holder) => {
      if ('draft_category_id' in holder && holder.external_id === null) holder.external_id = '';
    },
  },
  '/components/schemas/DraftDish/properties/options': {
    does: "a dish's configurator comes back with its amounts as JSON numbers, whether they were sent as numbers or numeric strings",
    probe: ['createDraftDish', 'updateDraftDish', 'getDraftDish'],
    shows: 'menu.decided-publication-and-configurator',
    silentUnderSpec:
      'the spec allows a number or a numeric string; only the decided configurator test of full reads back what it sent',
    key: 'options',
    change: (holder) => {
      const numeric = (value: unknown): unknown =>
        typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
      for (const group of 'draft_category_id' in holder && Array.isArray(holder.options) ? holder.options : []) {
        if (!isRecord(group)) continue;
        for (const name of ['min', 'max']) if (name in group) group[name] = numeric(group[name]);
        for (const item of Array.isArray(group.items) ? group.items : [])
          if (isRecord(item)) item.price = numeric(item.price);
      }
    },
  },
  '/components/schemas/CarrierOrderStatus': {
    does: 'the carrier view shows an accepted order as `preparing` (the kitchen has it), not `confirmed`',
    probe: ['getCarrierOrder'],
    shows: 'stateful.orders',
    silentUnderSpec:
      'every carrier status stays one the spec lists; only the model of full reads the carrier view after each status change',
    key: 'order_status',
    change: (holder) => {
      if (holder.order_status === 'confirmed') holder.order_status = 'preparing';
    },
  },
  '/components/schemas/StaffMember': {
    does: 'a staff member record carries one more field, `created_at` (when the staff member was added)',
    probe: ['createSession', 'getSession'],
    shows: 'session.decided-answers',
    silentUnderSpec:
      'the document leaves answer records open (new fields are additive); only the decided session test of full counts the fields',
    key: 'restaurant_ids',
    change: (holder) => {
      if ('role' in holder && !('created_at' in holder)) holder.created_at = '2026-01-01T00:00:00Z';
    },
  },
  '/components/schemas/StaffMember/properties/role': {
    does: "the suite's staff member (Pizza Piccolo's) manages both its branches in a role this service names `branch_manager`, not `manager` (the organization's administrator is another account, which the suite does not use)",
    probe: ['createSession', 'getSession'],
    shows: 'schema.createSession',
    key: 'role',
    change: (holder) => {
      if (holder.role === 'administrator' && holder.organization_id === 1) holder.role = 'branch_manager';
    },
  },
  '/components/schemas/SessionResponse/properties/staff_members': {
    does: "`staff_members` holds the staff members of every organization the session sees: a courier's session its organization's, a dispatcher's all of them (a staff member's own record, as decided)",
    probe: ['createSession', 'getSession'],
    shows: 'session.decided-answers',
    silentUnderSpec:
      'the spec shows only that it is an array of staff members; only the decided session test of full reads which records it holds',
    key: 'staff_members',
    change: (holder, mock) => {
      const account = isRecord(holder.api_user) && isRecord(holder.api_user.account) ? holder.api_user.account : {};
      const { couriers, staffMembers } = mock.runtime.state;
      const organization = account.type === 'courier' ? couriers.get(Number(account.id))?.organization_id : undefined;
      if (account.type === 'dispatcher') holder.staff_members = staffMembers.all();
      else if (organization !== undefined)
        holder.staff_members = staffMembers.all().filter((staff) => staff.organization_id === organization);
    },
  },
  '/components/schemas/SessionResponse/properties/meta/properties/expires_at': {
    does: 'a token ends 24 hours after its last use (not 30 days): `expires_at` says so',
    probe: ['createSession', 'getSession'],
    shows: 'session.decided-answers',
    silentUnderSpec: 'a timestamp either way; only the decided session test of full reads how far ahead it is',
    key: 'expires_at',
    change: (holder) => {
      const at = typeof holder.expires_at === 'string' ? Date.parse(holder.expires_at) : Number.NaN;
      if ('token' in holder && !Number.isNaN(at))
        holder.expires_at = new Date(at - 29 * 24 * 60 * 60 * 1000).toISOString();
    },
  },
  '/components/schemas/Payment': {
    does: "a payment's `amount` is a JSON number, not a decimal string",
    probe: ['getOrder'],
    shows: 'schema.getOrder',
    key: 'payments',
    change: (holder) => stringsToNumbers(holder.payments, 'amount'),
  },
  '/components/schemas/Courier/properties/last_known_position': {
    does: "a courier's last known position is a WKT point (`POINT(13.4 52.5)`, longitude first), not an object",
    probe: ['getCourier', 'listCouriers', 'updateCarrierDelivery'],
    shows: 'stateful.orders',
    silentUnderSpec:
      'a courier has a position only after a carrier reports one; only the model of full does, and reads the couriers after it',
    key: 'last_known_position',
    change: (holder) => {
      const position = holder.last_known_position;
      if (isRecord(position) && typeof position.lat === 'number' && typeof position.lon === 'number')
        holder.last_known_position = `POINT(${position.lon} ${position.lat})`;
    },
  },
  '/components/schemas/Configurator': {
    does: 'a configurator sent as an empty array is kept as `null` (both mean no add-ons)',
    probe: ['createDraftDish', 'updateDraftDish', 'getDraftDish'],
    shows: 'menu.decided-publication-and-configurator',
    silentUnderSpec:
      'the spec does not say whether the array may be empty; only the decided configurator test of full sends one and reads it back',
    key: 'options',
    change: (holder) => {
      if ('draft_category_id' in holder && Array.isArray(holder.options) && holder.options.length === 0)
        holder.options = null;
    },
  },
  '/components/schemas/Timetable/properties/date': {
    does: 'a dated timetable entry gives its `date` as a timestamp (`2026-12-24T00:00:00Z`)',
    probe: ['getDeliveryZone', 'updateDeliveryZone'],
    shows: 'zones.timetable',
    key: 'timetables',
    change: (holder) => {
      for (const entry of Array.isArray(holder.timetables) ? holder.timetables : [])
        if (isRecord(entry) && typeof entry.date === 'string' && /^\d{4}-\d\d-\d\d$/.test(entry.date))
          entry.date = `${entry.date}T00:00:00Z`;
    },
  },
};

/** The document, its validators and its classifier: one of each per process (both factories share theirs). */
function describedApi(): { api: ApiDescription; classifier: DepartureClassifier } {
  const api = createApiDescription();
  return { api, classifier: createDepartureClassifier(api) };
}

/** A marker's pointer as a short name: `OrderUpdate.order`, `listOrders.status`. */
function shortName(pointer: string): string {
  const schema = /^\/components\/schemas\/(.+)$/.exec(pointer);
  if (schema) return schema[1]!.replace(/\/properties\//g, '.');
  const parameter = /^\/paths\/[^/]+\/[a-z]+\/parameters\/(\d+)$/.exec(pointer);
  const op = describedApi().api.operations.find((o) => pointer.startsWith(`${o.pointer}/`));
  const raw = getAtPointer(openapiDocument, pointer) as { name?: string } | undefined;
  return parameter && op ? `${op.operationId}.${raw?.name ?? parameter[1]}` : pointer;
}

/**
 * The markers that make a request invalid where the spec states nothing: every closed object of a request body
 * (an unknown field refused) and every query parameter with a list of values, whose innermost marker is
 * decided, with the operations that take them. Read from the document by walking each request body's schema.
 */
function lenientSites(): Map<string, Set<string>> {
  const { api, classifier } = describedApi();
  const out = new Map<string, Set<string>>();
  const add = (operationId: string, issue: ValidationIssue): void => {
    const decision = classifier.requestDecision(operationId, issue)?.pointer;
    if (decision) out.set(decision, (out.get(decision) ?? new Set()).add(operationId));
  };
  for (const op of api.operations) {
    if (op.kind !== 'paths') continue;
    const walk = (node: unknown, path: string[], trail: readonly unknown[]): void => {
      if (!isRecord(node) || trail.includes(node) || path.length > 8) return;
      const within = [...trail, node];
      if (typeof node.$ref === 'string') return walk(getAtPointer(openapiDocument, node.$ref.slice(1)), path, within);
      for (const key of ['allOf', 'oneOf', 'anyOf'])
        for (const branch of Array.isArray(node[key]) ? (node[key] as unknown[]) : []) walk(branch, path, within);
      if (node.additionalProperties === false)
        add(op.operationId, {
          in: 'body',
          pointer: `/${[...path, 'zz_unknown_field'].join('/')}`,
          keyword: 'additionalProperties',
          message: 'unknown field',
        });
      const required = Array.isArray(node.required) ? node.required : [];
      for (const [name, property] of Object.entries(isRecord(node.properties) ? node.properties : {})) {
        // An optional member with a list of values: a lenient service ignores a value outside it.
        if (!required.includes(name) && Array.isArray(resolved(property).enum))
          add(op.operationId, {
            in: 'body',
            pointer: `/${[...path, name].join('/')}`,
            keyword: 'enum',
            message: 'a value outside the list',
          });
        walk(property, [...path, name], within);
      }
      if (isRecord(node.items)) walk(node.items, [...path, '0'], within);
    };
    const body = op.requestBody?.content['application/json'];
    if (body) walk(getAtPointer(openapiDocument, body), [], []);
    for (const parameter of op.parameters) {
      // Ignoring the value of a required parameter refuses the request all the same.
      if (parameter.in !== 'query' || parameter.required) continue;
      const schema = resolved(getAtPointer(openapiDocument, parameter.schemaPointer));
      const item = resolved(schema.items);
      if (Array.isArray(schema.enum) || Array.isArray(item.enum))
        add(op.operationId, {
          in: 'query',
          name: parameter.name,
          pointer: `/${parameter.name}${Array.isArray(schema.enum) ? '' : '/0'}`,
          keyword: 'enum',
          message: 'a value outside the list',
        });
    }
  }
  return out;
}

/** A schema with its `$ref`s followed (an empty object for anything else). */
function resolved(schema: unknown): Json {
  let node = schema;
  for (let hops = 0; isRecord(node) && typeof node.$ref === 'string' && hops < 10; hops += 1)
    node = getAtPointer(openapiDocument, node.$ref.slice(1));
  return isRecord(node) ? node : {};
}

/** Every generated departure, by name (see {@link FamilyDeparture}). */
export const FAMILY_DEPARTURES: Readonly<Record<string, FamilyDeparture>> = familyDepartures();

/** Options of {@link createIndependentService}. */
export interface IndependentServiceOptions {
  /** The departures to make (default {@link ANSWER_DEPARTURES}); `[]` is the mock itself. */
  departures?: readonly DepartureName[];
  /** Generated departures to make too, by name (see {@link FAMILY_DEPARTURES}; default none). */
  families?: readonly string[];
  /** Options of the mock behind the wrapper. */
  mock?: MockOptions;
}

/** The independent service: a `fetch` (and a `Request → Response` handler) in front of a mock. */
export interface IndependentService {
  /** Sends a request to the service (the URL's origin is ignored). */
  fetch: typeof fetch;
  handle(request: Request): Promise<Response>;
  /** The departures it makes. */
  departures: readonly DepartureName[];
  /** The mock behind it (its control API at `/__mock` is passed through unchanged). */
  mock: Mock;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Applies `fn` to every `timetables` entry found anywhere in a body. */
function eachTimetable(body: unknown, fn: (entry: Json, index: number) => void): void {
  if (Array.isArray(body)) {
    for (const item of body) eachTimetable(item, fn);
    return;
  }
  if (!isRecord(body)) return;
  for (const [key, value] of Object.entries(body)) {
    if (key === 'timetables' && Array.isArray(value)) value.forEach((entry, i) => isRecord(entry) && fn(entry, i));
    else eachTimetable(value, fn);
  }
}

/** Text fields a lenient service takes a number or a boolean for, as its string (`coerce-names`). */
const TEXT_FIELDS = new Set([
  'name',
  'description',
  'phone',
  'address',
  'city',
  'about',
  'contact_name',
  'contact_phone',
  'comment',
  'ingredients',
]);

/** Applies `fn` to every object found under `key` anywhere in a body. */
function eachKey(body: unknown, key: string, fn: (holder: Json) => void): void {
  if (Array.isArray(body)) {
    for (const item of body) eachKey(item, key, fn);
    return;
  }
  if (!isRecord(body)) return;
  if (key in body) fn(body);
  for (const value of Object.values(body)) eachKey(value, key, fn);
}

/** Whether the runtime knows a time zone name (an IANA name or an alias of one). */
function knownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Rewrites each id of a request's path and `*_id` query parameters that `Number()` reads as a whole number of 1 or
 * more (`01`, `+1`, `1.0`, `0x1`) in its canonical form (`ids-by-value`); whether it changed anything.
 */
function byValue(url: URL): boolean {
  const canonical = (text: string): string | undefined => {
    const value = text.trim() === '' ? Number.NaN : Number(text);
    return Number.isSafeInteger(value) && value >= 1 && String(value) !== text ? String(value) : undefined;
  };
  let changed = false;
  // The segment after a collection of records with ids (not a job id or a carrier's secure_id).
  const collection = /^(orders|restaurants|organizations|draft_dishes|draft_categories|delivery_zones|couriers)$/;
  const segments = url.pathname.split('/').map((segment, i, all) => {
    let text: string;
    try {
      text = decodeURIComponent(segment);
    } catch {
      return segment;
    }
    const id = collection.test(all[i - 1] ?? '') && all[1] !== 'api-delivery' ? canonical(text) : undefined;
    if (id === undefined) return segment;
    changed = true;
    return id;
  });
  if (changed) url.pathname = segments.join('/');
  for (const name of [...new Set(url.searchParams.keys())].filter((key) => /(^|_)id(\[\])?$/.test(key))) {
    const values = url.searchParams.getAll(name);
    const read = values.map((value) =>
      value
        .split(',')
        .map((item) => canonical(item) ?? item)
        .join(','),
    );
    if (read.every((value, i) => value === values[i])) continue;
    url.searchParams.delete(name);
    for (const value of read) url.searchParams.append(name, value);
    changed = true;
  }
  return changed;
}

/** A job id of the mock (hexadecimal) as the integer this service shows: the same job, the same number. */
function numericJobId(id: string): number {
  return Number.parseInt(id.slice(-12), 16);
}

function json(status: number, body: unknown, headers: HeadersInit = {}): Response {
  return Response.json(body, { status, headers });
}

/** The mock's error answer for an invalid field, built the way the mock builds them (then translated). */
function invalidField(pointer: string, detail: string): Response {
  return json(422, {
    errors: [{ status: '422', code: 'invalid_value', title: 'Invalid value', detail, source: { pointer } }],
  });
}

/** The same answer with another status: no body for a 204, an empty JSON object in place of none. */
async function restatus(answer: Response, status: number): Promise<Response> {
  const headers = new Headers(answer.headers);
  headers.delete('content-length');
  if (status === 204) {
    headers.delete('content-type');
    return new Response(null, { status, headers });
  }
  const text = await answer.text();
  if (text && answer.status >= 400) {
    // An error body says its own status too (Error.status): the service answers consistently.
    const body = JSON.parse(text) as { errors?: { status?: string }[] };
    for (const error of body.errors ?? []) if (error.status) error.status = String(status);
    return Response.json(body, { status, headers });
  }
  if (text) return new Response(text, { status, headers });
  headers.set('content-type', 'application/json');
  return new Response('{}', { status, headers });
}

/** The values of a schema of the document with a list of values. */
function enumOf(name: string): string[] {
  return (resolved(getAtPointer(openapiDocument, `/components/schemas/${name}`)).enum ?? []) as string[];
}

/**
 * The carrier view's name of each main API order status: the document lists both in the same order, mapped one
 * to one (the table of `CarrierOrderStatus`).
 */
const CARRIER_STATUS: Readonly<Record<string, string>> = Object.fromEntries(
  enumOf('OrderStatus').map((status, index) => [status, enumOf('CarrierOrderStatus')[index]!]),
);

/** The name of the placeholder dish and category of an empty menu import (`empty-menu-import`). */
const PLACEHOLDER = 'independent-empty-menu-placeholder';

/** The staff members of the demo organizations (password `demo`), whom a widened request is replayed as. */
const DEMO_STAFF = ['admin@pizza.demo', 'admin@sushi.demo'];

/** The body of a request as JSON, read from a copy (undefined when it is not JSON). */
async function jsonOf(request: Request): Promise<unknown> {
  if (!(request.headers.get('content-type') ?? '').includes('json')) return undefined;
  try {
    return JSON.parse(await request.clone().text()) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Creates the independent service in process.
 * @example
 * const service = createIndependentService({ departures: ['publish-204'] });
 * await runContractSuite({ baseUrl: 'http://service.local', fetch: service.fetch, config, profile: 'spec' });
 */
export function createIndependentService(options: IndependentServiceOptions = {}): IndependentService {
  const on = new Set<DepartureName>(options.departures ?? ANSWER_DEPARTURES);
  const callbacksChanged = ['callbacks-with-body', 'callback-extra-kind', 'callback-carrier-status'].some((name) =>
    on.has(name as DepartureName),
  );
  const mock = createMock(
    callbacksChanged
      ? { ...options.mock, callbackFetch: callbackSender(options.mock?.callbackFetch ?? fetch) }
      : options.mock,
  );
  for (const [name, other] of Object.entries(CONTRADICTING))
    if (on.has(name as DepartureName) && on.has(other)) throw new Error(`departures ${name} and ${other} contradict`);
  const families = (options.families ?? []).map((name) => {
    const family = FAMILY_DEPARTURES[name];
    if (!family) throw new Error(`no generated departure ${name}`);
    return family;
  });
  /** The answer values this service writes another way (`answer:*`). */
  const answerChanges = families.filter((f) => f.family === 'answer value').map((f) => ANSWER_CHANGES[f.decision]!);
  /** The refusals this service does not make (`lenient:*`), by marker. */
  const lenient = new Set(families.filter((f) => f.family === 'refusal').map((f) => f.decision));
  /** Records whose photo was just uploaded and not read since (`photo-later`). */
  const processing = new Set<string>();
  /**
   * Zone fields this service keeps as sent while the mock holds another value (`any-time-zone`, `area-holes`,
   * `hours-in-utc`), by zone id; and what each zone write sent of those fields (`undefined`: given to the mock
   * as sent), by request.
   */
  const zoneShown = new Map<unknown, Json>();
  const zoneSent = new WeakMap<Request, Record<string, unknown>>();

  /** Clients the storefront registered that a `from_scratch` import deleted, by mock session (`from-scratch-every-client`). */
  const storefrontGone = new Map<string, Set<number>>();
  /** Menu imports whose placeholder dish is still to be deleted, by mock session and organization (`empty-menu-import`). */
  const placeholders = new Map<string, { publish: boolean }>();
  /** Tokens of the demo staff members, by mock session and login (`dispatcher-imports`, `dispatcher-confirms`). */
  const staffTokens = new Map<string, string>();

  /** The callbacks as this service sends them (`callbacks-with-body`, `callback-extra-kind`, `callback-carrier-status`). */
  function callbackSender(send: typeof fetch): typeof fetch {
    return (async (input: RequestInfo | URL, init?: RequestInit) => {
      const original = new Request(input, init);
      const url = new URL(original.url);
      const type = url.searchParams.get('type');
      const status = url.searchParams.get('status');
      if (on.has('callback-carrier-status') && type === 'order_status_changed' && status && CARRIER_STATUS[status])
        url.searchParams.set('status', CARRIER_STATUS[status]);
      const headers = new Headers(original.headers);
      let body: string | undefined;
      if (on.has('callbacks-with-body')) {
        body = JSON.stringify(Object.fromEntries(url.searchParams));
        headers.set('content-type', 'application/json');
      }
      const answer = await send(new Request(url, { method: original.method, headers, body, signal: original.signal }));
      if (on.has('callback-extra-kind') && type === 'order_status_changed') {
        // A kind the document does not list: a receiver acknowledges and ignores it.
        const extra = new URL(url);
        extra.searchParams.set('type', 'order_changed');
        await send(new Request(extra, { method: original.method, headers, body })).catch(() => undefined);
      }
      return answer;
    }) as typeof fetch;
  }

  /** A side request to the mock, in the caller's mock session. */
  function side(request: Request, path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const session = request.headers.get(SESSION_HEADER);
    if (session) headers.set(SESSION_HEADER, session);
    return mock.fetch(new Request(new URL(path, request.url), { ...init, headers }));
  }

  /** A demo staff member's token in the caller's mock session (signed in again when `fresh`). */
  async function staffToken(request: Request, login: string, fresh: boolean): Promise<string | undefined> {
    const key = `${request.headers.get(SESSION_HEADER) ?? ''} ${login}`;
    if (!fresh && staffTokens.has(key)) return staffTokens.get(key);
    const answer = await side(request, '/api/session', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ login, password: 'demo' }).toString(),
    });
    const token = ((await answer.json()) as { meta?: { token?: string } }).meta?.token;
    if (token) staffTokens.set(key, token);
    return token;
  }

  /**
   * A request the mock refused (403) to a dispatcher, done for it by the demo staff member of the organization:
   * the widened access of `dispatcher-imports` and `dispatcher-confirms`. Undefined for any other caller.
   */
  async function asStaff(request: Request, url: URL): Promise<Response | undefined> {
    const auth = new Headers();
    const authorization = request.headers.get('authorization');
    if (authorization) auth.set('authorization', authorization);
    const token = url.searchParams.get('token');
    const who = await side(request, `/api/session${token ? `?token=${encodeURIComponent(token)}` : ''}`, {
      headers: auth,
    });
    const type = (await who.json().catch(() => ({}))) as { api_user?: { account?: { type?: string } } };
    if (type.api_user?.account?.type !== 'dispatcher') return undefined;
    const body = request.method === 'GET' ? undefined : await request.clone().arrayBuffer();
    const target = new URL(url);
    target.searchParams.delete('token');
    for (const login of DEMO_STAFF)
      for (const fresh of [false, true]) {
        const headers = new Headers(request.headers);
        headers.set('authorization', `Token token="${await staffToken(request, login, fresh)}"`);
        const answer = await mock.fetch(new Request(target, { method: request.method, headers, body }));
        if (answer.status === 401) continue;
        if (answer.status !== 403 && answer.status !== 404) return answer;
        break;
      }
    return undefined;
  }

  /**
   * Deletes the placeholder dish and category of an empty menu import once its job is done, as the caller, and
   * publishes the menu if the import asked to; whether it is done.
   */
  async function dropPlaceholder(request: Request, organization: string, publish: boolean): Promise<boolean> {
    const auth = { authorization: request.headers.get('authorization') ?? '' };
    const state = await side(request, `/api/organizations/${organization}/import/menu`, { headers: auth });
    if (state.status !== 200 || ((await state.json()) as Json).status !== 'idle') return false;
    for (const kind of ['draft_dishes', 'draft_categories']) {
      const list = (await (await side(request, `/api/${kind}`, { headers: auth })).json()) as Json;
      for (const record of Array.isArray(list[kind]) ? list[kind] : [])
        if (isRecord(record) && record.name === PLACEHOLDER)
          await side(request, `/api/${kind}/${String(record.id)}`, { method: 'DELETE', headers: auth });
    }
    if (publish) await side(request, `/api/organizations/${organization}/publish`, { method: 'POST', headers: auth });
    return true;
  }

  /** The carrier view of an order, as the mock shows it (undefined when there is none). */
  async function carrierView(request: Request, secureId: string): Promise<Json | undefined> {
    const answer = await side(request, `/api-delivery/orders/${secureId}`);
    if (answer.status !== 200) return undefined;
    const body = (await answer.json()) as { order?: Json };
    return body.order;
  }

  /** The service's own refusal of a request the mock would take, or a request rewritten for the mock. */
  async function ownRules(original: Request, url: URL): Promise<Request | Response> {
    let request = original;
    if (on.has('ids-by-value') && byValue(url)) request = new Request(url, request);
    const path = url.pathname;
    const method = request.method;
    const absent = (status: number, code = 'not_found') =>
      json(status, { errors: [{ status: String(status), code, title: 'No such endpoint' }] });
    if (on.has('no-couriers') && /^\/api\/couriers(\/[^/]+)?\/?$/.test(path)) return absent(404);
    // 501, where the other missing endpoints answer 404 or 405: the suite must take each of the three as absence.
    if (on.has('no-order-links') && method === 'GET' && /^\/(api\/)?orders\/[^/]+\/(items|buddies)$/.test(path))
      return absent(501, 'not_implemented');
    if (on.has('no-category-create') && method === 'POST' && /^\/api\/draft_categories\/?$/.test(path))
      return absent(405);
    if (on.has('no-zone-delete') && method === 'DELETE' && /^\/api\/delivery_zones\/[^/]+$/.test(path))
      return absent(405);
    const carrier = /^\/api-delivery\/orders\/([^/]+)(\/delivery)?$/.exec(path);
    if (carrier && (on.has('carrier-finished-gone') || (on.has('carrier-repeat-409') && carrier[2]))) {
      const view = await carrierView(request, carrier[1]!);
      const finished = view && ['complete', 'cancelled'].includes(String(view.order_status));
      if (on.has('carrier-finished-gone') && finished) return absent(404);
      const wanted = await jsonOf(request);
      const delivery = isRecord(view?.delivery) ? view.delivery : {};
      if (
        on.has('carrier-repeat-409') &&
        method === 'PUT' &&
        carrier[2] &&
        isRecord(wanted) &&
        wanted.status !== undefined &&
        wanted.status === delivery.status
      )
        return json(409, {
          errors: [
            {
              status: '409',
              code: 'invalid_transition',
              title: 'No change',
              detail: `the delivery is already ${String(delivery.status)}`,
              source: { pointer: '/status' },
            },
          ],
        });
    }
    const clientImport = method === 'POST' && /^\/api\/organizations\/[^/]+\/import\/clients$/.test(path);
    if (clientImport && on.has('clients-at-least-one')) {
      const body = await jsonOf(request);
      if (isRecord(body) && Array.isArray(body.clients) && body.clients.length === 0)
        return invalidField('/clients', 'clients must hold at least one client');
    }
    const session = request.headers.get(SESSION_HEADER) ?? '';
    if (clientImport && on.has('from-scratch-every-client') && url.searchParams.get('from_scratch') === 'true') {
      // The mock keeps the clients without an external_id (the storefront's): this service deletes them too.
      const organization = Number(/organizations\/(\d+)\//.exec(path)?.[1]);
      const state = (await (await side(request, '/__mock/state')).json()) as {
        clients?: { rows?: { id: number; organization_id: number; external_id: string | null }[] };
      };
      const gone = storefrontGone.get(session) ?? new Set<number>();
      for (const client of state.clients?.rows ?? [])
        if (client.organization_id === organization && client.external_id === null) gone.add(client.id);
      storefrontGone.set(session, gone);
    }
    if (on.has('empty-menu-import')) {
      const menuImport = /^\/api\/organizations\/(\d+)\/import\/menu$/.exec(path);
      if (menuImport && method === 'POST') {
        const body = await jsonOf(request);
        if (isRecord(body) && Array.isArray(body.dishes) && body.dishes.length === 0) {
          // The mock imports at least one dish: a placeholder, deleted (and the menu published) after the job.
          const config = isRecord(body.config) ? body.config : {};
          const publish = config.publish_menu === true;
          body.config = { ...config, publish_menu: false };
          body.dishes = [{ name: PLACEHOLDER, external_id: PLACEHOLDER, price: 1, category_name: PLACEHOLDER }];
          const answer = await mock.fetch(
            new Request(url, { method, headers: request.headers, body: JSON.stringify(body) }),
          );
          if (answer.status < 300) placeholders.set(`${session} ${menuImport[1]}`, { publish });
          return answer;
        }
      }
      const reads =
        method === 'GET' && /^\/api\/(draft_dishes|draft_categories|organizations\/\d+\/import\/menu)/.test(path);
      for (const [key, pending] of reads ? [...placeholders] : [])
        if (key.startsWith(`${session} `) && (await dropPlaceholder(request, key.split(' ')[1]!, pending.publish)))
          placeholders.delete(key);
    }
    const orderImport = method === 'POST' && /^\/api\/organizations\/[^/]+\/import\/orders$/.test(path);
    const gone = storefrontGone.get(session);
    if (orderImport && gone?.size) {
      const body = await jsonOf(request);
      if (isRecord(body) && Array.isArray(body.orders)) {
        // A deleted client is unknown: the mock refuses the order as it refuses any unknown client_id.
        for (const order of body.orders)
          if (isRecord(order) && gone.has(Number(order.client_id))) order.client_id = 2_000_000_000;
        request = new Request(url, { method, headers: request.headers, body: JSON.stringify(body) });
      }
    }
    if (orderImport && (on.has('import-pending-only') || on.has('empty-orders-answered'))) {
      const body = await jsonOf(request);
      const list = isRecord(body) && Array.isArray(body.orders) ? body.orders : undefined;
      if (on.has('import-pending-only'))
        for (const [index, order] of (list ?? []).entries())
          if (isRecord(order) && order.status !== undefined && order.status !== 'pending')
            return invalidField(`/orders/${index}/status`, 'an imported order can only be pending');
      if (on.has('empty-orders-answered') && list?.length === 0) {
        // The mock refuses an empty list after checking the caller: its refusal of the list becomes an empty answer.
        const answer = await mock.fetch(request.clone());
        return answer.status === 422 ? json(200, { organization_import: [] }) : answer;
      }
    }
    if (on.has('dishes-path-as-written') && method === 'POST' && path === '/api/draft_dishes') return absent(405);
    if (on.has('dishes-path-as-written') && method === 'GET' && path === '/api/draft_dishes/') return absent(404);
    if (on.has('api-key-header') && method === 'POST' && path === '/api/session') {
      // Issuing a key is not shown: this service issues `key-<login>` to each demo user (password `demo`).
      const key = request.headers.get('x-api-key');
      if (!key && (url.searchParams.has('api_key') || /(^|&|name=")api_key/.test(await request.clone().text())))
        return invalidField('/api_key', 'send the API key in the X-Api-Key header');
      if (key?.startsWith('key-')) {
        const headers = new Headers(request.headers);
        headers.delete('x-api-key');
        headers.set('content-type', 'application/x-www-form-urlencoded');
        const body = new URLSearchParams({ login: key.slice(4), password: 'demo' }).toString();
        request = new Request(url, { method, headers, body });
      }
    }
    if (on.has('sms-option-named') && method === 'PUT' && /^\/(api\/)?orders\/[^/]+(\/status)?$/.test(path)) {
      const off = url.searchParams.get('sms') === 'off';
      url.searchParams.delete('send_sms');
      url.searchParams.delete('sms');
      if (off) url.searchParams.set('send_sms', 'false');
      request = new Request(url, request);
    }
    if (on.has('lenient-paging') && method === 'GET')
      for (const key of ['page', 'per_page']) {
        const value = url.searchParams.get(key);
        if (value === null || /^\d+$/.test(value)) continue;
        url.searchParams.delete(key);
        request = new Request(url, request);
      }
    if (on.has('coerce-names') && (method === 'POST' || method === 'PUT') && path.startsWith('/api/')) {
      const type = request.headers.get('content-type') ?? '';
      if (type.includes('json')) {
        const text = await request.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: the mock refuses it as it is
        }
        const coerce = (value: unknown): void => {
          if (Array.isArray(value)) value.forEach(coerce);
          if (!isRecord(value)) return;
          for (const [key, field] of Object.entries(value))
            if (TEXT_FIELDS.has(key) && (typeof field === 'number' || typeof field === 'boolean'))
              value[key] = String(field);
            else coerce(field);
        };
        coerce(body);
        request = new Request(url, {
          method,
          headers: request.headers,
          body: typeof body === 'string' ? body : JSON.stringify(body),
        });
      }
    }
    const delivery = /^\/api-delivery\/orders\/([^/]+)\/delivery$/.exec(path);
    if (delivery && method === 'PUT' && on.has('delivery-skips')) {
      const skipped = await stepsBetween(request, url, delivery[1]!);
      if (skipped instanceof Response) return skipped;
      request = skipped;
    }
    const zone = /^\/api\/delivery_zones(\/[^/]+)?\/?$/.test(path) && (method === 'POST' || method === 'PUT');
    const dish = /^\/api\/draft_dishes(\/[^/]+)?\/?$/.test(path) && (method === 'POST' || method === 'PUT');
    const orders = method === 'POST' && /^\/api\/organizations\/[^/]+\/import\/orders$/.test(path);
    const category = method === 'PUT' && /^\/api\/draft_categories\/[^/]+$/.test(path);
    const order = method === 'PUT' && /^\/(api\/)?orders\/[^/]+$/.test(path);
    const restaurant = method === 'PUT' && /^\/api\/restaurants\/[^/]+$/.test(path);
    const wanted =
      (restaurant && on.has('read-only-ignored')) ||
      (zone && (on.has('any-time-zone') || on.has('area-holes') || on.has('hours-in-utc'))) ||
      (dish && on.has('configurator-rounded')) ||
      (order && on.has('unassign-refused')) ||
      (zone && on.has('zone-wrapped')) ||
      (dish &&
        (on.has('dish-price-number') ||
          on.has('dish-weight-number') ||
          on.has('dish-weight-string') ||
          on.has('dishes-hidden-by-default'))) ||
      (orders && (on.has('buddies-named') || on.has('comment-as-note'))) ||
      (category && on.has('menu-order-fixed'));
    if (!wanted || !(request.headers.get('content-type') ?? '').includes('json')) return request;
    const text = await request.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return new Request(url, { method, headers: request.headers, body: text });
    }
    if (order && on.has('unassign-refused') && isRecord(body)) {
      const fields = isRecord(body.order) ? body.order : body;
      if ('courier_id' in fields && fields.courier_id === null)
        return invalidField('/order/courier_id', 'courier_id must be an integer');
    }
    if (zone && on.has('zone-wrapped')) {
      if (!isRecord(body) || !isRecord(body.delivery_zone))
        return invalidField('/delivery_zone', 'delivery_zone is required');
      body = body.delivery_zone;
    }
    if (restaurant && on.has('read-only-ignored') && isRecord(body)) {
      const fields = isRecord(body.restaurant) ? body.restaurant : body;
      delete fields.is_running;
      delete fields.is_delivery;
    }
    if (zone && isRecord(body)) {
      const fields = isRecord(body.delivery_zone) ? body.delivery_zone : body;
      const sent: Record<string, unknown> = {};
      const keep = (field: string, forMock: unknown): void => {
        sent[field] = fields[field];
        fields[field] = forMock;
      };
      const { timezone, area } = fields;
      if (typeof timezone === 'string' && timezone !== '') {
        sent.timezone = undefined;
        // Reading the hours in UTC still refuses a name it does not know; `any-time-zone` takes any.
        if (knownTimeZone(timezone) ? on.has('hours-in-utc') : on.has('any-time-zone')) keep('timezone', 'UTC');
      }
      if (typeof area === 'string') {
        sent.area = undefined;
        const outer = /^\s*POLYGON\s*\((\([^()]*\))\s*,\s*\([^()]*\)(\s*,\s*\([^()]*\))*\)\s*$/i.exec(area);
        if (on.has('area-holes') && outer) keep('area', `POLYGON(${outer[1]})`);
      }
      zoneSent.set(original, sent);
    }
    if (dish && on.has('configurator-rounded') && isRecord(body)) {
      const fields = isRecord(body.draft_dish) ? body.draft_dish : body;
      for (const group of Array.isArray(fields.options) ? fields.options : []) {
        if (!isRecord(group)) continue;
        for (const name of ['min', 'max'])
          if (typeof group[name] === 'number' && !Number.isInteger(group[name])) group[name] = Math.floor(group[name]);
        for (const item of Array.isArray(group.items) ? group.items : [])
          if (isRecord(item) && /^\d+\.\d{3,}$/.test(String(item.price)))
            item.price =
              typeof item.price === 'number' ? Math.round(item.price * 100) / 100 : Number(item.price).toFixed(2);
      }
    }
    if (dish && on.has('dish-price-number') && isRecord(body)) {
      const fields = isRecord(body.draft_dish) ? body.draft_dish : body;
      if (typeof fields.price === 'string') return invalidField('/price', 'price must be a number');
    }
    if (dish && (on.has('dish-weight-number') || on.has('dish-weight-string')) && isRecord(body)) {
      const fields = isRecord(body.draft_dish) ? body.draft_dish : body;
      const refused = on.has('dish-weight-number') ? 'string' : 'number';
      if (typeof fields.weight === refused)
        return invalidField(
          '/weight',
          `weight must be ${refused === 'string' ? 'a number' : 'a decimal string'} of grams`,
        );
    }
    if (orders && on.has('buddies-named') && isRecord(body) && Array.isArray(body.orders)) {
      for (const [o, order] of body.orders.entries())
        for (const [b, buddy] of (isRecord(order) && Array.isArray(order.buddies) ? order.buddies : []).entries())
          if (isRecord(buddy) && (typeof buddy.id !== 'string' || typeof buddy.name !== 'string'))
            return invalidField(`/orders/${o}/buddies/${b}`, 'a buddy needs id and name');
    }
    if (dish && method === 'POST' && on.has('dishes-hidden-by-default') && isRecord(body)) {
      const fields = isRecord(body.draft_dish) ? body.draft_dish : body;
      fields.is_hidden ??= true;
    }
    if (orders && on.has('comment-as-note') && isRecord(body) && Array.isArray(body.orders))
      for (const order of body.orders) if (isRecord(order)) delete order.comment;
    if (category && on.has('menu-order-fixed') && isRecord(body) && isRecord(body.draft_category))
      delete body.draft_category.menu_order;
    return new Request(url, { method, headers: request.headers, body: JSON.stringify(body) });
  }

  /**
   * Takes the delivery statuses between the current one and a later one a carrier reports (`delivery-skips`): each
   * is sent to the mock in turn, so the main order moves as it would step by step. Answers the request to send
   * last, or the mock's refusal of a step.
   */
  async function stepsBetween(request: Request, url: URL, secureId: string): Promise<Request | Response> {
    const text = await request.text();
    const again = (): Request => new Request(url, { method: 'PUT', headers: request.headers, body: text });
    let wanted: unknown;
    try {
      wanted = (JSON.parse(text) as Json).status;
    } catch {
      return again();
    }
    const view = await mock.fetch(new Request(new URL(`/api-delivery/orders/${secureId}`, url)));
    const current = view.ok ? ((await view.json()) as { order?: { delivery?: { status?: unknown } } }) : {};
    const chain = ['idle', 'courier_assigned', 'delivering', 'delivered'];
    const from = chain.indexOf(String(current.order?.delivery?.status));
    const to = chain.indexOf(String(wanted));
    for (const step of from >= 0 && to > from + 1 ? chain.slice(from + 1, to) : []) {
      const answer = await mock.fetch(
        new Request(url, { method: 'PUT', headers: request.headers, body: JSON.stringify({ status: step }) }),
      );
      if (!answer.ok) return answer;
    }
    return again();
  }

  /** The request as the mock understands it, or the service's own refusal. */
  async function translateRequest(original: Request, url: URL): Promise<Request | Response> {
    const request = await ownRules(original, url);
    if (request instanceof Response) return request;
    if (on.has('per-page-clamped') && request.method === 'GET' && /^\/(api\/)?orders\/?$/.test(url.pathname)) {
      const perPage = url.searchParams.get('per_page');
      if (perPage !== null && /^\d+$/.test(perPage) && Number(perPage) > 20) {
        url.searchParams.set('per_page', '20');
        return new Request(url, request);
      }
    }
    // Both forms of the path: the spec states that /orders and /api/orders are the same endpoints.
    if (on.has('per-page-50') && request.method === 'GET' && /^\/(api\/)?orders\/?$/.test(url.pathname)) {
      const perPage = url.searchParams.get('per_page');
      if (perPage === null) url.searchParams.set('per_page', '10');
      else if (/^\d+$/.test(perPage) && Number(perPage) > 50)
        return json(400, {
          errors: [
            {
              status: '400',
              code: 'invalid_parameter',
              title: 'Invalid parameter',
              detail: 'per_page must be at most 50',
              source: { parameter: 'per_page' },
            },
          ],
        });
      return new Request(url, request);
    }
    if (
      on.has('days-from-sunday') &&
      (request.method === 'POST' || request.method === 'PUT') &&
      /^\/api\/delivery_zones(\/\d+)?\/?$/.test(url.pathname) &&
      (request.headers.get('content-type') ?? '').includes('json')
    ) {
      const text = await request.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return new Request(url, { method: request.method, headers: request.headers, body: text });
      }
      let refusal: Response | undefined;
      eachTimetable(body, (entry, index) => {
        if (entry.day === 7) refusal ??= invalidField(`/timetables/${index}/day`, 'day must be 0 (Sunday) to 6');
        else if (entry.day === 0) entry.day = 7;
      });
      if (refusal) return refusal;
      return new Request(url, { method: request.method, headers: request.headers, body: JSON.stringify(body) });
    }
    return request;
  }

  /** The mock's answer as this service gives it. */
  async function translateResponse(request: Request, url: URL, response: Response): Promise<Response> {
    const path = url.pathname;
    const method = request.method;
    const status = response.status;
    const type = response.headers.get('content-type') ?? '';
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    if (on.has('no-request-id')) headers.delete('x-request-id');
    if (status === 401 && on.has('bearer-challenge')) headers.set('WWW-Authenticate', 'Bearer realm="api"');
    const noBody = (): Response => {
      headers.delete('content-type');
      return new Response(null, { status: 204, headers });
    };
    if (
      status === 200 &&
      method === 'POST' &&
      on.has('publish-204') &&
      /^\/api\/organizations\/\d+\/publish$/.test(path)
    )
      return noBody();
    if (status === 200 && method === 'PUT' && on.has('status-204') && /^\/api\/orders\/\d+\/status$/.test(path))
      return noBody();
    if (
      status === 200 &&
      method === 'PUT' &&
      on.has('carrier-delivery-204') &&
      /^\/api-delivery\/orders\/[^/]+\/delivery$/.test(path)
    )
      return noBody();
    if (!type.includes('json')) return new Response(response.body, { status, headers });
    let body: unknown = await response.json();
    let answerStatus = status;
    if (status === 201 && method === 'POST' && on.has('zone-created-200') && /^\/api\/delivery_zones\/?$/.test(path))
      answerStatus = 200;
    if (on.has('days-from-sunday')) eachTimetable(body, (entry) => entry.day === 7 && (entry.day = 0));
    if (path.startsWith('/api/delivery_zones')) {
      const sent = zoneSent.get(request);
      if (sent && status < 300 && isRecord(body)) {
        const shown = zoneShown.get(body.id) ?? {};
        for (const [field, value] of Object.entries(sent))
          if (value === undefined) delete shown[field];
          else shown[field] = value;
        zoneShown.set(body.id, shown);
      }
      eachKey(body, 'timezone', (zone) => Object.assign(zone, zoneShown.get(zone.id)));
    }
    if (on.has('photo-later')) {
      const photo = /^\/api\/(draft_dishes|draft_categories)\/(\d+)(\/photo)?$/.exec(path);
      if (photo && method === 'PUT' && photo[3] && status < 300) processing.add(`${photo[1]}/${photo[2]}`);
      if (photo && method === 'GET' && !photo[3] && processing.delete(`${photo[1]}/${photo[2]}`) && isRecord(body))
        for (const record of Object.values(body)) if (isRecord(record) && 'photo' in record) record.photo = null;
    }
    if (status === 200 && method === 'POST' && on.has('session-201') && path === '/api/session') answerStatus = 201;
    if (on.has('avatar-large'))
      eachKey(body, 'avatar', (holder) => {
        const avatar = holder.avatar;
        if (isRecord(avatar) && typeof avatar.original === 'string') avatar.large = avatar.original;
      });
    for (const change of answerChanges) eachKey(body, change.key, (holder) => change.change(holder, mock));
    if (on.has('prices-three-decimals'))
      eachKey(body, 'price', (holder) => {
        // A dish's own price; option prices are returned exactly as sent (ConfiguratorPrice).
        if ('draft_category_id' in holder && typeof holder.price === 'string' && /^\d+\.\d{2}$/.test(holder.price))
          holder.price = `${holder.price}0`;
      });
    if (on.has('zone-money-strings') && path.startsWith('/api/delivery_zones'))
      for (const key of ['free_delivery_price', 'minimal_order_price'])
        eachKey(body, key, (holder) => {
          if (typeof holder[key] === 'number') holder[key] = (holder[key] as number).toFixed(2);
        });
    if (on.has('social-links-null'))
      eachKey(body, 'social_network', (holder) => {
        const links = holder.social_network;
        if (isRecord(links)) for (const network of ['vk', 'facebook', 'twitter', 'instagram']) links[network] ??= null;
      });
    if (/\/import\/(menu|clients)$/.test(path) && isRecord(body)) {
      if (on.has('job-finished') && body.job_status === 'done') body.job_status = 'finished';
      if (on.has('numeric-job-id') && typeof body.job_id === 'string') body.job_id = numericJobId(body.job_id);
      if (on.has('busy-200') && method === 'POST' && status === 409 && body.status === 'busy') {
        // The spec's busy object alone ("busy with job data"), as a success: the errors array is ours.
        const { errors: _errors, ...busy } = body;
        return json(200, busy, headers);
      }
    }
    if (
      on.has('session-body') &&
      method === 'GET' &&
      /^\/api\/session$/.test(path) &&
      status === 200 &&
      isRecord(body)
    ) {
      const meta = body.meta as Json;
      const user = body.api_user as Json;
      body = {
        session: {
          token: meta.token,
          expires_at: meta.expires_at,
          user: { id: user.id, login: user.login, name: user.name },
          account: user.account,
        },
      };
    }
    const collection =
      /^\/api\/(restaurants|delivery_zones|draft_categories|draft_dishes|organizations|couriers)\/?$/.exec(path);
    if (on.has('total-all-records') && method === 'GET' && collection && isRecord(body) && isRecord(body.meta)) {
      const tables = mock.runtime.state;
      const table = {
        restaurants: tables.restaurants,
        delivery_zones: tables.deliveryZones,
        draft_categories: tables.draftCategories,
        draft_dishes: tables.draftDishes,
        organizations: tables.organizations,
        couriers: tables.couriers,
      }[collection[1]!]!;
      if (typeof body.meta.total === 'number') body.meta.total = table.size;
    }
    if (on.has('count-this-page') && method === 'GET' && /^\/(api\/)?orders\/?$/.test(path) && isRecord(body)) {
      const meta = body.meta;
      if (isRecord(meta) && Array.isArray(body.orders)) meta.count = body.orders.length;
    }
    if (
      on.has('categories-newest-first') &&
      method === 'GET' &&
      /^\/api\/draft_categories\/?$/.test(path) &&
      isRecord(body) &&
      Array.isArray(body.draft_categories)
    )
      (body.draft_categories as Json[]).sort((a, b) => Number(b.id) - Number(a.id));
    if (on.has('weight-zero'))
      eachKey(body, 'weight', (holder) => {
        if ('draft_category_id' in holder && holder.weight === null) holder.weight = '0';
      });
    if (
      on.has('dishes-newest-first') &&
      method === 'GET' &&
      /^\/api\/draft_dishes\/?$/.test(path) &&
      status === 200 &&
      isRecord(body) &&
      Array.isArray(body.draft_dishes)
    )
      (body.draft_dishes as Json[]).sort((a, b) => Number(b.id) - Number(a.id));
    if (status >= 400 && status < 500) {
      if (status === 422 && on.has('invalid-400')) answerStatus = 400;
      if (on.has('error-object') && isRecord(body) && Array.isArray(body.errors)) {
        const first = (body.errors[0] ?? {}) as Json;
        const source = (first.source ?? {}) as Json;
        const { errors: _errors, ...rest } = body;
        body = {
          ...rest,
          error: {
            code: first.code,
            message: first.detail ?? first.title,
            ...(source.pointer || source.parameter || source.header
              ? { field: source.pointer ?? source.parameter ?? source.header }
              : {}),
          },
        };
      }
    }
    return json(answerStatus, body, headers);
  }

  /** The request with what a `lenient:*` departure lets through taken out: unknown fields, undocumented values. */
  async function letThrough(request: Request, url: URL): Promise<Request> {
    const { api, classifier } = describedApi();
    const match = api.match(request.method, url.pathname);
    if (!match) return request;
    const operationId = match.operation.operationId;
    const json = (request.headers.get('content-type') ?? '').includes('json');
    const text = json ? await request.text() : undefined;
    let body: unknown;
    try {
      body = text === undefined ? undefined : JSON.parse(text);
    } catch {
      // not JSON: the mock refuses it as it is
    }
    // Validation may coerce what it reads: it gets a copy, the mock the body as sent.
    const result = api.validateRequest(operationId, {
      params: match.params,
      query: url.search,
      contentType: body === undefined ? undefined : 'application/json',
      body: structuredClone(body),
    });
    let changed = false;
    for (const issue of result.valid ? [] : result.issues) {
      if (!lenient.has(classifier.requestDecision(operationId, issue)?.pointer ?? '')) continue;
      if (issue.in === 'query' && issue.name) {
        url.searchParams.delete(issue.name);
        changed = true;
      } else if (issue.in === 'body' && (issue.keyword === 'additionalProperties' || issue.keyword === 'enum')) {
        const path = issue.pointer.split('/').slice(1);
        const holder = path
          .slice(0, -1)
          .reduce<unknown>(
            (node, key) => (isRecord(node) || Array.isArray(node) ? (node as Json)[key] : undefined),
            body,
          );
        if (isRecord(holder)) delete holder[path.at(-1)!];
        changed = true;
      }
    }
    if (text === undefined) return changed ? new Request(url, request) : request;
    return new Request(url, {
      method: request.method,
      headers: request.headers,
      body: changed ? JSON.stringify(body) : text,
    });
  }

  async function handle(original: Request): Promise<Response> {
    const url = new URL(original.url);
    let request = lenient.size && !url.pathname.startsWith('/__mock') ? await letThrough(original, url) : original;
    for (const change of answerChanges) if (change.request) request = change.request(request, url);
    if (url.pathname.startsWith('/__mock')) {
      // A reset starts the world over: its zones are new records, whatever ids they reuse.
      if (request.method === 'POST' && /^\/__mock\/reset\/?$/.test(url.pathname)) zoneShown.clear();
      // The storefront the control API shows is this service's menu too.
      const answer = await mock.fetch(request);
      if (!(answer.headers.get('content-type') ?? '').includes('json')) return answer;
      if (on.has('weight-zero')) return translateResponse(request, url, answer);
      if (!answerChanges.length) return answer;
      // The records it shows are this service's, written its way (a dish's configurator on the storefront).
      const body: unknown = await answer.json();
      for (const change of answerChanges) eachKey(body, change.key, (holder) => change.change(holder, mock));
      const headers = new Headers(answer.headers);
      headers.delete('content-length');
      return json(answer.status, body, headers);
    }
    const translated = await translateRequest(request, url);
    const widened =
      translated instanceof Request &&
      ((on.has('dispatcher-imports') &&
        /^\/api\/organizations\/[^/]+\/import\/(menu|clients|orders)$/.test(url.pathname)) ||
        (on.has('dispatcher-confirms') &&
          translated.method === 'PUT' &&
          /^\/(api\/)?orders\/[^/]+\/confirm$/.test(url.pathname)));
    const again = widened ? translated.clone() : undefined;
    let response = translated instanceof Response ? translated : await mock.fetch(translated);
    if (again && response.status === 403) response = (await asStaff(again, url)) ?? response;
    let answer = await translateResponse(request, url, response);
    for (const family of families)
      if (
        answer.status === family.from &&
        family.sites.some((s) => s.method === request.method && s.path.test(url.pathname))
      )
        answer = await restatus(answer, family.to);
    if (on.has('json-vnd-api') && /^application\/json\b/i.test(answer.headers.get('content-type') ?? ''))
      answer.headers.set('content-type', 'application/vnd.api+json');
    return answer;
  }

  return {
    handle,
    fetch: ((input: RequestInfo | URL, init?: RequestInit) => handle(new Request(input, init))) as typeof fetch,
    departures: DEPARTURE_NAMES.filter((name) => on.has(name)),
    mock,
    close: async () => mock.close(),
  };
}

/** An independent service listening on a loopback port. */
export interface RunningIndependentService {
  url: string;
  service: IndependentService;
  server: Server;
  close(): Promise<void>;
}

/**
 * Serves {@link createIndependentService} over HTTP on 127.0.0.1 (a free port unless `port` is given).
 * @example const { url, close } = await startIndependentService({ departures: ['job-finished'] });
 */
export async function startIndependentService(
  options: IndependentServiceOptions & { port?: number } = {},
): Promise<RunningIndependentService> {
  const service = createIndependentService(options);
  let origin = '';
  const server = createServer((req, res) => {
    service
      .handle(toFetchRequest(req, origin))
      .then((response) => writeFetchResponse(response, res))
      .catch((error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(error));
      });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    service,
    server,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
    },
  };
}
