import type { components } from '@restoapi/openapi';
import type { OrderRecord } from '../state/mock-state.js';
import { formatPoint } from '../zones/polygon-area.js';
import { idleDelivery } from './delivery.js';
import { centsText } from './money.js';

/** Minutes from restaurant to customer the mock assumes for a delivery (never more than the delivery time). */
export const TRANSPORTATION_MINUTES = 15;

/** The `links` of an order: its participants and items (paths under `/api/orders/<id>/`). */
export function orderLinks(id: number): components['schemas']['Order']['links'] {
  return { buddies: `/api/orders/${id}/buddies`, items: `/api/orders/${id}/items` };
}

/** The parts an order's `address_text` is built from. */
export interface AddressParts {
  address?: string | null;
  apartment?: string | null;
  staircase?: string | null;
  floor?: string | null;
  doorphone?: string | null;
  city?: string | null;
}

/** The order's full address from its fields, as in `Wiener Straße 18, apartment 4, floor 2, Berlin`; empty parts are left out. */
export function buildAddressText(parts: AddressParts): string {
  const labelled = (label: string, value: string | null | undefined) => (value ? `${label} ${value}` : '');
  return [
    parts.address ?? '',
    labelled('apartment', parts.apartment),
    labelled('staircase', parts.staircase),
    labelled('floor', parts.floor),
    labelled('doorphone', parts.doorphone),
    parts.city ?? '',
  ]
    .map((part) => part.trim())
    .filter(Boolean)
    .join(', ');
}

/** The initials an organization's order numbers start with: `Pizza Piccolo` → `PP`; `ORD` for a name without letters. */
export function orderNumberPrefix(organizationName: string): string {
  const initials = organizationName
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase())
    .join('')
    .replace(/[^A-Z0-9]/g, '')
    .slice(0, 4);
  return initials || 'ORD';
}

/** The human-readable number of an order: organization initials and the order id, `PP-5001`. */
export function orderNumber(organizationName: string, id: number): string {
  return `${orderNumberPrefix(organizationName)}-${id}`;
}

/**
 * The fields of an order placed through the storefront: not imported, no bonuses, not yet handed to a
 * carrier (its delivery block idle). A function: each order gets its own delivery block.
 */
export function storefrontOrigin() {
  return {
    secure_id: null,
    carrier_id: null,
    delivery: idleDelivery(),
    external_id: null,
    source: 'storefront',
    takeaway: false,
    used_bonuses: '0.00',
  } as const satisfies Partial<OrderRecord>;
}

/** The fields an order record derives from others; {@link orderRecord} works them out. */
type DerivedField =
  | 'number'
  | 'transportation_time'
  | 'cooking_time'
  | 'coordinates'
  | 'latitude'
  | 'longitude'
  | 'city'
  | 'address'
  | 'apartment'
  | 'staircase'
  | 'floor'
  | 'doorphone'
  | 'address_text'
  | 'pick_up_at'
  | 'final_sum'
  | 'delivery_price'
  | 'total'
  | 'links';

/** What an order is made of: its facts; numbering, times, point, address text and money are derived. */
export interface OrderFacts extends Omit<OrderRecord, DerivedField> {
  /** The organization's name, for the order number. */
  organizationName: string;
  /** A number kept from before (a re-imported order); otherwise `PP-5001` from the name and id. */
  number?: string;
  /** Minutes from restaurant to customer; {@link TRANSPORTATION_MINUTES} (at most `delivery_time`) by default. */
  transportation_time?: number;
  /** Where the order goes (WGS84). */
  point: { lon: number; lat: number };
  address: AddressParts;
  /** The address text when the parts make none (a takeaway order names its restaurant). */
  addressFallback?: string;
  /** The items' total and the delivery price, in cents; `final_sum` is their sum. */
  totalCents: number;
  deliveryPriceCents: number;
}

/**
 * The one way an order record is built (storefront orders, imports, the demo seed): the order number,
 * cooking time and pick-up time, WKT point, address text and money fields follow from the facts.
 */
export function orderRecord(facts: OrderFacts): OrderRecord {
  const {
    organizationName,
    number,
    transportation_time,
    point,
    address,
    addressFallback,
    totalCents,
    deliveryPriceCents,
    ...rest
  } = facts;
  const transportation = transportation_time ?? Math.min(TRANSPORTATION_MINUTES, rest.delivery_time);
  const parts = {
    city: address.city ?? '',
    address: address.address ?? '',
    apartment: address.apartment ?? '',
    staircase: address.staircase ?? '',
    floor: address.floor ?? '',
    doorphone: address.doorphone ?? '',
  };
  return {
    id: rest.id,
    number: number ?? orderNumber(organizationName, rest.id),
    delivery_time: rest.delivery_time,
    transportation_time: transportation,
    cooking_time: rest.delivery_time - transportation,
    contact_phone: rest.contact_phone,
    contact_name: rest.contact_name,
    description: rest.description,
    change: rest.change,
    status: rest.status,
    created_at: rest.created_at,
    courier_confirmed_at: rest.courier_confirmed_at,
    restaurant_confirmed_at: rest.restaurant_confirmed_at,
    delivery_asap: rest.delivery_asap,
    delivery_at: rest.delivery_at,
    coordinates: formatPoint(point.lon, point.lat),
    latitude: point.lat,
    longitude: point.lon,
    ...parts,
    address_text: buildAddressText(parts) || (addressFallback ?? ''),
    pick_up_at: new Date(Date.parse(rest.delivery_at) - transportation * 60_000).toISOString(),
    payment_source: rest.payment_source,
    final_sum: (totalCents + deliveryPriceCents) / 100,
    delivery_price: centsText(deliveryPriceCents),
    total: centsText(totalCents),
    restaurant_id: rest.restaurant_id,
    client_id: rest.client_id,
    courier_id: rest.courier_id,
    payment_id: rest.payment_id,
    links: orderLinks(rest.id),
    organization_id: rest.organization_id,
    delivery_zone_id: rest.delivery_zone_id,
    secure_id: rest.secure_id,
    carrier_id: rest.carrier_id,
    delivery: rest.delivery,
    external_id: rest.external_id,
    source: rest.source,
    takeaway: rest.takeaway,
    used_bonuses: rest.used_bonuses,
    status_changed_at: rest.status_changed_at,
  };
}
