import type { components } from '@restoapi/sdk';
import { Table, type WithId } from './table.js';

type S = components['schemas'];

/** An API user with its credentials (never sent out). */
export type ApiUserRecord = S['ApiUser'] & { password: string; api_key?: string | null };
/** A session: a token bound to an API user. */
export interface SessionRecord extends WithId {
  token: string;
  api_user_id: number;
  created_at: string;
  last_used_at: string;
  /** Set by `DELETE /api/session`; an ended token never works again. */
  ended_at: string | null;
}
/** A dispatcher account. */
export interface DispatcherRecord extends WithId {
  name: string;
}
/** A draft category; `draft_dish_ids` is derived from the dishes on every read. */
export type DraftCategoryRecord = Omit<S['DraftCategory'], 'draft_dish_ids'> & {
  /** Menu import's category `external_id` (matched on re-import; never sent out). */
  external_id?: string | null;
  /** Menu import's `remote_photo_url`, as sent. */
  remote_photo_url?: string | null;
};
/** A draft dish with the per-restaurant availability and photo URL set by menu import. */
export type DraftDishRecord = S['DraftDish'] & { availability?: S['DishAvailability'][] | null; remote_photo_url?: string | null };
/** The menu a storefront sees: a snapshot of the drafts taken by `publish`. */
export interface PublishedMenuRecord extends WithId {
  /** Same as the organization id: one published menu per organization. */
  organization_id: number;
  version: number;
  published_at: string;
  categories: S['DraftCategory'][];
  dishes: DraftDishRecord[];
}
/** A client of an organization. */
export interface ClientRecord extends WithId {
  organization_id: number;
  external_id: string | null;
  name: string;
  email: string | null;
  gender: 'male' | 'female' | null;
  birthdate: string | null;
  registered_at: string | null;
  comment: string | null;
  addresses: string[];
  phone_numbers: string[];
  tags: string[];
  is_blacklisted: boolean;
}
/** A stored photo upload, served back at the URLs of the `photo` object. */
export interface PhotoRecord extends WithId {
  content_type: string;
  /** Base64 of the uploaded bytes. */
  data: string;
  owner: 'draft_category' | 'draft_dish';
  owner_id: number;
}

/** An order with what the service keeps beside the public fields. */
export type OrderRecord = S['Order'] & {
  organization_id: number;
  /** The delivery zone the order was placed in (null when assigned by restaurant only). */
  delivery_zone_id: number | null;
  /** Set when the order is handed to a registered carrier. */
  secure_id: string | null;
  carrier_id: number | null;
  /** The carrier's writable delivery block. */
  delivery: S['Delivery'];
  /** External id from order import. */
  external_id: string | null;
  source: string | null;
  takeaway: boolean;
  used_bonuses: string;
  status_changed_at: string;
};
/** A menu or client import job. */
export interface ImportJobRecord extends WithId {
  organization_id: number;
  kind: 'menu' | 'clients';
  job_status: S['ImportJobStatus'];
  job_message: string;
  created_at: string;
  /** Virtual time the job finishes at; progress is derived from it. */
  finishes_at: string;
  finished_at: string | null;
  /** The validated import body. */
  payload: unknown;
  options: { from_scratch?: boolean };
}
/** A carrier registered through the control API (the spec: "registered beforehand through support"). */
export interface CarrierRecord extends WithId {
  name: string;
  callback_url: string;
  /** Restaurants whose delivery orders go to this carrier; null for all. */
  restaurant_ids: number[] | null;
  /** Optional Standard Webhooks secret (`whsec_…`); callbacks are signed when set. */
  secret: string | null;
  /** Deliberate unreliability of its callbacks (the control API's `CarrierChaos`); absent or null for none. */
  chaos?: CarrierChaos | null;
  created_at: string;
}
/** Chaos options of a carrier: duplicate (probability), delay (virtual ms), swap consecutive callbacks; deterministic per seed. */
export interface CarrierChaos {
  duplicate?: number;
  delayMs?: number;
  reorder?: boolean;
  seed?: number;
}
/** One attempt to deliver a callback. */
export interface CallbackAttempt {
  at: string;
  outcome: 'delivered' | 'failed';
  status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
}
/** A callback the mock sends to a carrier, with its delivery history. */
export interface CallbackRecord extends WithId {
  carrier_id: number;
  order_id: number;
  type: 'order_created' | 'order_status_changed';
  /** The query parameters sent (type, order_id, order_secure_id, status). */
  query: Record<string, string>;
  /** Standard Webhooks `webhook-id` of the event: the same for every retry and for a chaos duplicate. */
  webhook_id?: string;
  /** The callback a chaos duplicate copies; null otherwise. */
  duplicate_of?: number | null;
  created_at: string;
  state: 'pending' | 'delivered' | 'failed';
  next_attempt_at: string | null;
  attempts: CallbackAttempt[];
}
/** An SMS or e-mail the service would have sent. */
export interface NotificationRecord extends WithId {
  channel: 'sms' | 'email';
  to: string;
  subject: string | null;
  text: string;
  order_id: number | null;
  /** Why it was sent: `order_status_changed`, `order_imported_pending`, … */
  reason: string;
  created_at: string;
}

/** The whole state of one mock instance. Every table is plain data, so the state round-trips through JSON. */
export interface MockStateTables {
  apiUsers: Table<ApiUserRecord>;
  sessions: Table<SessionRecord>;
  staffMembers: Table<S['StaffMember']>;
  dispatchers: Table<DispatcherRecord>;
  couriers: Table<S['Courier']>;
  organizations: Table<S['Organization']>;
  restaurants: Table<S['Restaurant']>;
  draftCategories: Table<DraftCategoryRecord>;
  draftDishes: Table<DraftDishRecord>;
  publishedMenus: Table<PublishedMenuRecord>;
  deliveryZones: Table<S['DeliveryZone']>;
  clients: Table<ClientRecord>;
  photos: Table<PhotoRecord>;
  orders: Table<OrderRecord>;
  orderItems: Table<S['OrderItem']>;
  buddies: Table<S['Buddy']>;
  payments: Table<S['Payment']>;
  importJobs: Table<ImportJobRecord>;
  carriers: Table<CarrierRecord>;
  callbacks: Table<CallbackRecord>;
  notifications: Table<NotificationRecord>;
}

/** Names of the tables, in the order they are saved. */
export const TABLE_NAMES = [
  'apiUsers',
  'sessions',
  'staffMembers',
  'dispatchers',
  'couriers',
  'organizations',
  'restaurants',
  'draftCategories',
  'draftDishes',
  'publishedMenus',
  'deliveryZones',
  'clients',
  'photos',
  'orders',
  'orderItems',
  'buddies',
  'payments',
  'importJobs',
  'carriers',
  'callbacks',
  'notifications',
] as const satisfies readonly (keyof MockStateTables)[];

/** JSON form of the state (`GET /__mock/state`). */
export type MockStateJson = { version: 1 } & { [K in keyof MockStateTables]?: { nextId?: number; rows: unknown[] } };

/** Builds the tables from JSON (missing tables start empty). */
export function stateFromJson(json: MockStateJson | undefined): MockStateTables {
  const out: Record<string, Table<WithId>> = {};
  for (const name of TABLE_NAMES) out[name] = Table.fromJSON(json?.[name] as { rows: WithId[] } | undefined);
  return out as unknown as MockStateTables;
}

/** Serialises the tables. */
export function stateToJson(state: MockStateTables): MockStateJson {
  const out: MockStateJson = { version: 1 };
  for (const name of TABLE_NAMES) (out as Record<string, unknown>)[name] = state[name].toJSON();
  return out;
}
