import type {
  ApiUserRecord,
  CallbackRecord,
  CarrierRecord,
  ClientRecord,
  DispatcherRecord,
  DraftCategoryRecord,
  DraftDishRecord,
  ImportJobRecord,
  NotificationRecord,
  OrderRecord,
  PhotoRecord,
  PublishedMenuRecord,
  SessionRecord,
  Buddy,
  Courier,
  DeliveryZone,
  MockFixture,
  OrderItem,
  Organization,
  Payment,
  Restaurant,
  StaffMember,
} from '../generated/fixture.js';
import { Table, type WithId } from './table.js';

/*
 * The records are typed by the fixture schema (schemas/fixture.schema.json, generated from the control
 * document's `MockState`): the JSON Schema is their single source, see `npm run generate`.
 */
export type {
  ApiUserRecord,
  CallbackAttempt,
  CallbackRecord,
  CarrierChaos,
  CarrierRecord,
  ClientRecord,
  DispatcherRecord,
  DraftCategoryRecord,
  DraftDishRecord,
  ImportJobRecord,
  NotificationRecord,
  OrderRecord,
  PhotoRecord,
  PublishedMenuRecord,
  SessionRecord,
} from '../generated/fixture.js';

/** The whole state of one mock instance. Every table is plain data, so the state round-trips through JSON. */
export interface MockStateTables {
  apiUsers: Table<ApiUserRecord>;
  sessions: Table<SessionRecord>;
  staffMembers: Table<StaffMember>;
  dispatchers: Table<DispatcherRecord>;
  couriers: Table<Courier>;
  organizations: Table<Organization>;
  restaurants: Table<Restaurant>;
  draftCategories: Table<DraftCategoryRecord>;
  draftDishes: Table<DraftDishRecord>;
  publishedMenus: Table<PublishedMenuRecord>;
  deliveryZones: Table<DeliveryZone>;
  clients: Table<ClientRecord>;
  photos: Table<PhotoRecord>;
  orders: Table<OrderRecord>;
  orderItems: Table<OrderItem>;
  buddies: Table<Buddy>;
  payments: Table<Payment>;
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

/** Name of a table. */
type TableName = (typeof TABLE_NAMES)[number];

/** JSON form of the state (`GET /__mock/state`) and format of fixture files: `MockFixture` of the fixture schema. */
export type MockStateJson = MockFixture;

/** Builds the tables from JSON (missing tables start empty). */
export function stateFromJson(json: MockStateJson | undefined): MockStateTables {
  const out: Record<string, Table<WithId>> = {};
  for (const name of TABLE_NAMES) out[name] = Table.fromJSON(json?.[name] as { rows: WithId[] } | undefined);
  return out as unknown as MockStateTables;
}

/** Serialises the tables. */
export function stateToJson(state: MockStateTables): MockStateJson {
  const out: MockStateJson = { version: 1 };
  for (const name of TABLE_NAMES) (out as Record<TableName, unknown>)[name] = state[name].toJSON();
  return out;
}
