import fc from 'fast-check';
import type { TestContext } from '../../runner/context.js';
import { VALID_AREA, type Rec } from '../../runner/fixtures.js';
import { parsePolygon } from '../../runner/geometry.js';
import { defineTest, opPointer } from '../define.js';
import { decided, editable, fresh, undo, pick, runMachine, sameRecords, type Machine, type Step } from './machine.js';

/** A timetable entry as the model keeps it: only the time of day of open_at and close_at counts (the spec). */
interface Entry {
  day: number;
  open: string;
  close: string;
  working: boolean;
}

interface Zone {
  name: string;
  deliveryTime: number | undefined;
  /** undefined until a sequence sets it. */
  price?: number;
  timetables?: Entry[];
  /** The polygon (WKT) and the terms, as the last write set them or as first read. */
  area: string | null;
  timezone: string;
  freeCount: number | null;
  freePrice: number | null;
  minimalPrice: number | null;
}

/** The area and terms a create or update sends. */
interface Terms {
  area?: string;
  timezone?: string;
  free_delivery_count?: number | null;
  free_delivery_price?: number | null;
  minimal_order_price?: number | null;
}

interface ZoneModel {
  zones: Map<number, Zone>;
  ours: Set<number>;
}

const names = fc.constantFrom('North', 'South', 'Centre', 'Harbour', 'Old town');
const minutes = fc.integer({ min: 10, max: 90 });
const zonePrices = fc.constantFrom(0, 1.5, 2.9, 4);
/** A rectangle (lon lat, closed ring) around Kreuzberg: a simple polygon as the spec wants. */
function rectangle(west: number, south: number, size: number): string {
  const [east, north] = [west + size, south + size];
  const corners = [
    [west, south],
    [east, south],
    [east, north],
    [west, north],
    [west, south],
  ];
  return `POLYGON((${corners.map(([lon, lat]) => `${lon!.toFixed(4)} ${lat!.toFixed(4)}`).join(', ')}))`;
}
const areas = fc.constantFrom(VALID_AREA, rectangle(13.38, 52.48, 0.02), rectangle(13.41, 52.5, 0.015));
const terms: fc.Arbitrary<Terms> = fc.record(
  {
    area: areas,
    timezone: fc.constantFrom('Europe/Berlin', 'Europe/Paris', 'Europe/Lisbon'),
    free_delivery_count: fc.constantFrom(null, 5, 8),
    free_delivery_price: fc.constantFrom(null, 25, 30.5),
    minimal_order_price: fc.constantFrom(null, 12, 15.5),
  },
  { requiredKeys: [] },
);
const entries = fc.uniqueArray(
  fc.record({
    day: fc.integer({ min: 1, max: 7 }),
    open: fc.constantFrom('09:00', '11:00', '12:30'),
    close: fc.constantFrom('20:00', '22:00', '23:30'),
    working: fc.boolean(),
  }),
  { minLength: 0, maxLength: 3, selector: (e) => e.day },
);

function timeOfDay(iso: unknown): string {
  const date = new Date(String(iso));
  return Number.isNaN(date.getTime()) ? String(iso) : date.toISOString().slice(11, 16);
}

function entriesOf(timetables: unknown): Entry[] {
  return ((timetables ?? []) as Rec[])
    .map((e) => ({
      day: e.day as number,
      open: timeOfDay(e.open_at),
      close: timeOfDay(e.close_at),
      working: e.is_working === true,
    }))
    .sort((a, b) => a.day - b.day);
}

function numberOrNull(value: unknown): number | null {
  return value == null ? null : Number(value);
}

/** The area's ring as numbers (a service may write the WKT with other spacing or decimals), or the text when unreadable. */
function ringOf(area: unknown): unknown {
  return area == null ? null : (parsePolygon(String(area)) ?? area);
}

/** The model's zone terms as first read or answered. */
function termsOf(zone: Rec): Pick<Zone, 'area' | 'timezone' | 'freeCount' | 'freePrice' | 'minimalPrice'> {
  return {
    area: (zone.area as string | null) ?? null,
    timezone: zone.timezone as string,
    freeCount: numberOrNull(zone.free_delivery_count),
    freePrice: numberOrNull(zone.free_delivery_price),
    minimalPrice: numberOrNull(zone.minimal_order_price),
  };
}

function applyTerms(zone: Zone, sent: Terms): void {
  if (sent.area !== undefined) zone.area = sent.area;
  if (sent.timezone !== undefined) zone.timezone = sent.timezone;
  if (sent.free_delivery_count !== undefined) zone.freeCount = sent.free_delivery_count;
  if (sent.free_delivery_price !== undefined) zone.freePrice = sent.free_delivery_price;
  if (sent.minimal_order_price !== undefined) zone.minimalPrice = sent.minimal_order_price;
}

function termsLabel(sent: Terms): string {
  return Object.keys(sent).length === 0 ? '' : `, ${JSON.stringify(sent)}`;
}

function checkZone(t: TestContext, zone: Rec, expected: Zone, what: string): void {
  t.equal(zone.name, expected.name, `${what}: name of zone ${zone.id}`);
  if (expected.deliveryTime !== undefined)
    t.equal(zone.delivery_time, expected.deliveryTime, `${what}: delivery_time of zone ${zone.id}`);
  if (expected.price !== undefined) t.equal(Number(zone.price), expected.price, `${what}: price of zone ${zone.id}`);
  if (expected.timetables !== undefined)
    t.equal(entriesOf(zone.timetables), expected.timetables, `${what}: timetables of zone ${zone.id}`);
  t.equal(ringOf(zone.area), ringOf(expected.area), `${what}: area of zone ${zone.id}`);
  t.equal(zone.timezone, expected.timezone, `${what}: timezone of zone ${zone.id}`);
  t.equal(
    numberOrNull(zone.free_delivery_count),
    expected.freeCount,
    `${what}: free_delivery_count of zone ${zone.id}`,
  );
  t.equal(
    numberOrNull(zone.free_delivery_price),
    expected.freePrice,
    `${what}: free_delivery_price of zone ${zone.id}`,
  );
  t.equal(
    numberOrNull(zone.minimal_order_price),
    expected.minimalPrice,
    `${what}: minimal_order_price of zone ${zone.id}`,
  );
}

async function readZone(m: ZoneModel, tc: TestContext, id: number): Promise<void> {
  const response = await (await tc.as('staffMember')).get(`/api/delivery_zones/${id}`);
  tc.status(response, 200, `reading zone ${id}`);
  checkZone(tc, tc.dig<Rec>(response, ['body'], `zone ${id}`), m.zones.get(id)!, 'GET by id');
}

async function listZones(t: TestContext): Promise<Rec[]> {
  const response = await (await t.as('staffMember')).get('/api/delivery_zones', { organization_id: t.fixtures.orgId });
  t.status(response, 200, 'listing delivery zones');
  return t
    .list<Rec>(response.body, ['delivery_zones'], 'the list of delivery zones')
    .filter((z) => z.organization_id === t.fixtures.orgId);
}

async function checkZoneList(m: ZoneModel, tc: TestContext): Promise<void> {
  sameRecords(tc, await listZones(tc), m.zones, 'the delivery zones listed', (zone, expected) =>
    checkZone(tc, zone, expected, 'the list'),
  );
}

const zoneMachine: Machine<ZoneModel> = {
  // Each write twice to one zone: its timetables and price, its area, its terms; a zone created and deleted.
  tour: [
    /^updateZone\(pick 0, [^,]+, \d+ min\)$/,
    /^updateZone\(pick 0, [^,]+, \d+ min\)$/,
    /^updateZone\(pick 0, .*timetables/,
    /^updateZone\(pick 0, .*timetables/,
    /^updateZone\(pick 0, .*price/,
    /^updateZone\(pick 0, .*"area"/,
    /^updateZone\(pick 0, .*"area"/,
    /^updateZone\(pick 0, .*"(timezone|minimal_order_price)"/,
    /^updateZone\(pick 0, .*"(free_delivery_count|free_delivery_price)"/,
    /^createZone\(/,
    /^deleteZone\(pick 0\)$/,
  ],
  // The list and each zone by id after every write.
  async observe(m, tc) {
    await checkZoneList(m, tc);
    for (const id of m.zones.keys()) await readZone(m, tc, id);
  },
  decidedOnly: [
    'deleteZone(): deleting a zone is not shown in the spec',
    'updateZone() with a price, timetables, an area, a time zone or free-delivery and minimum order limits: the editable fields of PUT on delivery zones are not shown in the spec',
  ],
  async init(t) {
    await fresh(t);
    const zones = await listZones(t);
    return {
      zones: new Map(
        zones.map((z) => [
          z.id as number,
          { name: z.name as string, deliveryTime: z.delivery_time as number, ...termsOf(z) },
        ]),
      ),
      ours: new Set(),
    };
  },
  commands(t) {
    const staff = (): ReturnType<TestContext['as']> => t.as('staffMember');
    const steps: fc.Arbitrary<Step<ZoneModel>>[] = [
      // The area and terms are fields of the spec's DeliveryZone, sent on create under both profiles.
      fc.tuple(names, minutes, terms).map(([name, deliveryTime, sent]) => ({
        label: `createZone(${name}, ${deliveryTime} min${termsLabel(sent)})`,
        writes: true,
        async run(m, tc) {
          const [restaurantId] = await tc.fixtures.restaurantIds();
          const response = await (
            await staff()
          ).post('/api/delivery_zones', {
            organization_id: tc.fixtures.orgId,
            restaurant_id: restaurantId,
            name,
            area: VALID_AREA,
            delivery_time: deliveryTime,
            ...sent,
          });
          tc.status(response, '2xx', 'creating a delivery zone');
          const id = tc.dig<number>(response.body, ['id'], 'the id of the created zone');
          tc.check(!m.zones.has(id), `a new zone got the id ${id} of a zone that exists`);
          // Terms not sent take the service's defaults (not shown in the spec): the answer's values are the model's.
          const zone: Zone = { name, deliveryTime, ...termsOf(response.body), area: VALID_AREA };
          applyTerms(zone, sent);
          m.zones.set(id, zone);
          m.ours.add(id);
          checkZone(
            tc,
            tc.dig<Rec>(response, ['body'], 'the created zone'),
            m.zones.get(id)!,
            'the answer to the create',
          );
          undo(tc, async () => (await staff()).delete(`/api/delivery_zones/${id}`));
        },
      })),
      fc
        .tuple(fc.nat(), names, minutes, decided(t, zonePrices), decided(t, entries), decided(t, terms))
        .map(([n, name, deliveryTime, price, timetables, sent = {}]) => ({
          label: `updateZone(pick ${n}, ${name}, ${deliveryTime} min${price === undefined ? '' : `, price ${price}`}${timetables === undefined ? '' : `, timetables ${timetables.map((e) => `${e.day} ${e.open}-${e.close}${e.working ? '' : ' off'}`).join('; ') || 'none'}`}${termsLabel(sent)})`,
          writes: true,
          applies: (m) => editable(t, m.zones, m.ours).length > 0,
          async run(m, tc) {
            const id = pick(editable(tc, m.zones, m.ours), n)!;
            const response = await (
              await staff()
            ).put(`/api/delivery_zones/${id}`, {
              name,
              delivery_time: deliveryTime,
              ...(price === undefined ? {} : { price }),
              ...sent,
              ...(timetables === undefined
                ? {}
                : {
                    timetables: timetables.map((e) => ({
                      day: e.day,
                      open_at: `2000-01-01T${e.open}:00Z`,
                      close_at: `2000-01-01T${e.close}:00Z`,
                      is_working: e.working,
                    })),
                  }),
            });
            tc.status(response, '2xx', `updating zone ${id}`);
            const zone = m.zones.get(id)!;
            Object.assign(zone, { name, deliveryTime });
            if (price !== undefined) zone.price = price;
            applyTerms(zone, sent);
            if (timetables !== undefined)
              zone.timetables = timetables
                .map((e) => ({ day: e.day, open: e.open, close: e.close, working: e.working }))
                .sort((a, b) => a.day - b.day);
          },
        })),
      fc.nat().map((n) => ({
        label: `readZone(pick ${n})`,
        applies: (m) => m.zones.size > 0,
        run: (m, tc) => readZone(m, tc, pick(m.zones.keys(), n)!),
      })),
      fc.constant({ label: 'listZones()', run: checkZoneList }),
    ];
    // Deleting a zone is not shown in the spec: only the decided DELETE (full profile) is part of the sequences.
    if (t.full)
      steps.push(
        fc.nat().map((n) => ({
          label: `deleteZone(pick ${n})`,
          writes: true,
          applies: (m) => editable(t, m.zones, m.ours).length > 0,
          async run(m, tc) {
            const id = pick(editable(tc, m.zones, m.ours), n)!;
            tc.status(await (await staff()).delete(`/api/delivery_zones/${id}`), '2xx', `deleting zone ${id}`);
            m.zones.delete(id);
            tc.status(await (await staff()).get(`/api/delivery_zones/${id}`), '4xx', `reading the deleted zone ${id}`);
          },
        })),
      );
    return steps;
  },
};

/** The delivery-zone machine as a test. */
export const zoneMachineTest = defineTest({
  id: 'stateful.zones',
  title:
    'Endpoints > Delivery zones (model-based): random sequences of creates, updates, deletes and reads agree with a model',
  clauses: [
    'Endpoints > Delivery zones: POST /api/delivery_zones',
    'Endpoints > Delivery zones: GET /api/delivery_zones/:id',
    'Endpoints > Delivery zones: GET /api/delivery_zones',
    'Endpoints > Delivery zones: PUT /api/delivery_zones/:id',
    'Resources > DeliveryZone: timetables',
    'Resources > DeliveryZone: price',
  ],
  profile: 'spec',
  decisions: [opPointer('/api/delivery_zones/{id}', 'delete')],
  kind: 'stateful',
  needs: ['mutations'],
  operations: [
    'createDeliveryZone',
    'updateDeliveryZone',
    'deleteDeliveryZone',
    'getDeliveryZone',
    'listDeliveryZones',
  ],
  run: (t) => runMachine(t, zoneMachine),
});
