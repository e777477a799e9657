import type { components } from '@restoapi/openapi';
import { categoryRecord, dishRecord } from '../model/dish.js';
import { orderRecord, storefrontOrigin } from '../model/order.js';
import type {
  ApiUserRecord,
  ClientRecord,
  DraftCategoryRecord,
  DraftDishRecord,
  MockStateJson,
  OrderRecord,
  PublishedMenuRecord,
} from '../state/mock-state.js';

type S = components['schemas'];

/** Logins of the demo seed; every password is `demo`. */
export const DEMO_LOGINS = [
  { login: 'admin@pizza.demo', role: 'staff member, administrator of Pizza Piccolo (organization 1)' },
  { login: 'admin@sushi.demo', role: 'staff member, administrator of Sakura Sushi (organization 2)' },
  { login: 'dispatcher@demo', role: 'dispatcher: every order of the system' },
  { login: 'courier@pizza.demo', role: 'courier 501 of Pizza Piccolo (Max Müller)' },
  { login: 'courier2@pizza.demo', role: 'courier 502 of Pizza Piccolo (Lena Weber)' },
] as const;

const CDN = 'https://cdn.restoapi.dev';

function avatar(path: string): S['Avatar'] {
  return {
    original: `${CDN}/avatars/${path}/original.jpg`,
    small: `${CDN}/avatars/${path}/small.jpg`,
    medium_square: `${CDN}/avatars/${path}/medium_square.jpg`,
    medium: `${CDN}/avatars/${path}/medium.jpg`,
  };
}

function user(
  id: number,
  login: string,
  name: string,
  phone: string,
  type: S['AccountType'],
  accountId: number,
): ApiUserRecord {
  return {
    id,
    login,
    password: 'demo',
    api_key: null,
    name,
    phone,
    avatar: avatar(`users/${id}`),
    account: { type, id: accountId },
  };
}

const WEEK = [1, 2, 3, 4, 5, 6, 7];

function zone(
  id: number,
  name: string,
  restaurantId: number,
  organizationId: number,
  area: string,
  money: { price: number; free?: number; min?: number; time: number },
): S['DeliveryZone'] {
  return {
    id,
    name,
    delivery_time: money.time,
    price: money.price,
    timezone: 'Europe/Berlin',
    free_delivery_count: null,
    free_delivery_price: money.free ?? null,
    minimal_order_price: money.min ?? null,
    area,
    restaurant_id: restaurantId,
    organization_id: organizationId,
    timetables: WEEK.map((day) => ({
      id: id * 10 + day,
      day,
      open_at: '2000-01-01T11:00:00Z',
      close_at: '2000-01-01T23:00:00Z',
      date: null,
      is_working: true,
    })),
  };
}

function dish(
  id: number,
  categoryId: number,
  organizationId: number,
  menuOrder: number,
  name: string,
  price: string,
  extra: Partial<DraftDishRecord> = {},
): DraftDishRecord {
  return {
    id,
    ...dishRecord({
      name,
      menu_order: menuOrder,
      price,
      draft_category_id: categoryId,
      organization_id: organizationId,
      ...extra,
    }),
  };
}

interface SeedLine {
  dish: DraftDishRecord;
  amount: number;
  /** Chosen options as [group, item name, surcharge]. */
  config?: [string, string, string][];
}

interface SeedOrder {
  id: number;
  prefix: string;
  restaurantId: number;
  organizationId: number;
  zoneId: number;
  status: S['OrderStatus'];
  courierId: number | null;
  clientId: number;
  contact: [string, string];
  address: [string, string, string];
  point: [number, number];
  payment: S['Order']['payment_source'];
  change: number | null;
  minutesAgo: number;
  deliveryPrice: string;
  lines: SeedLine[];
}

const cents = (amount: string): number => Math.round(Number(amount) * 100);
const money = (value: number): string => (value / 100).toFixed(2);

/**
 * The demo world of openapi/AUTHORING.md: two chains in Berlin, their
 * restaurants, zones, published menus (with a configurable pizza), couriers,
 * clients and orders in several statuses. Orders are dated relative to `now`,
 * so "today's orders" always has content.
 */
export function demoSeed(now: Date = new Date()): MockStateJson {
  const at = (minutesAgo: number): string => new Date(now.getTime() - minutesAgo * 60_000).toISOString();

  const organizations: S['Organization'][] = [
    {
      id: 1,
      name: 'Pizza Piccolo',
      host: 'pizza-piccolo.restoapi.dev',
      social_network: {
        instagram: 'https://www.instagram.com/pizzapiccolo.berlin',
        facebook: 'https://www.facebook.com/pizzapiccolo.berlin',
      },
      about: 'Neapolitan pizza, delivered hot',
      phone: '+49 30 1234567',
      accept_cashless: true,
    },
    {
      id: 2,
      name: 'Sakura Sushi',
      host: 'sakura-sushi.restoapi.dev',
      social_network: { instagram: 'https://www.instagram.com/sakurasushi.berlin' },
      about: 'Hand-rolled sushi from Mitte',
      phone: '+49 30 7654321',
      accept_cashless: false,
    },
  ];
  const restaurants: S['Restaurant'][] = [
    {
      id: 11,
      name: 'Pizza Piccolo Kreuzberg',
      phone: '+49 30 1234501',
      address: 'Oranienstraße 45, 10969 Berlin',
      organization_id: 1,
      is_running: true,
      is_delivery: true,
    },
    {
      id: 12,
      name: 'Pizza Piccolo Prenzlauer Berg',
      phone: '+49 30 1234502',
      address: 'Kastanienallee 12, 10435 Berlin',
      organization_id: 1,
      is_running: true,
      is_delivery: true,
    },
    {
      id: 21,
      name: 'Sakura Sushi Mitte',
      phone: '+49 30 7654301',
      address: 'Torstraße 101, 10119 Berlin',
      organization_id: 2,
      is_running: true,
      is_delivery: true,
    },
    {
      id: 22,
      name: 'Sakura Sushi Friedrichshain',
      phone: '+49 30 7654302',
      address: 'Simon-Dach-Straße 20, 10245 Berlin',
      organization_id: 2,
      is_running: true,
      is_delivery: true,
    },
  ];
  const apiUsers = [
    user(1, 'admin@pizza.demo', 'Anna Schmidt', '+49 30 1234567', 'staff_member', 1),
    user(2, 'admin@sushi.demo', 'Kenji Watanabe', '+49 30 7654321', 'staff_member', 2),
    user(3, 'dispatcher@demo', 'Dora Fischer', '+49 30 5550100', 'dispatcher', 1),
    user(4, 'courier@pizza.demo', 'Max Müller', '+49 151 2345678', 'courier', 501),
    user(5, 'courier2@pizza.demo', 'Lena Weber', '+49 151 8765432', 'courier', 502),
  ];
  const staffMembers: S['StaffMember'][] = [
    { id: 1, role: 'administrator', organization_id: 1, restaurant_ids: [11, 12] },
    { id: 2, role: 'administrator', organization_id: 2, restaurant_ids: [21, 22] },
  ];
  const couriers: S['Courier'][] = [
    {
      id: 501,
      name: 'Max Müller',
      phone: '+49 151 2345678',
      avatar: avatar('couriers/501'),
      organization_id: 1,
      last_known_position: null,
      comment: 'E-bike, insulated bag',
      partnership_id: null,
    },
    {
      id: 502,
      name: 'Lena Weber',
      phone: '+49 151 8765432',
      avatar: avatar('couriers/502'),
      organization_id: 1,
      last_known_position: null,
      comment: 'Cargo bike',
      partnership_id: null,
    },
    {
      id: 601,
      name: 'Yuki Tanaka',
      phone: '+49 152 3456789',
      avatar: avatar('couriers/601'),
      organization_id: 2,
      last_known_position: null,
      comment: 'Scooter',
      partnership_id: null,
    },
  ];

  const categories: DraftCategoryRecord[] = [
    { id: 1001, ...categoryRecord({ name: 'Pizza', menu_order: 1, organization_id: 1 }) },
    { id: 1002, ...categoryRecord({ name: 'Drinks', menu_order: 2, organization_id: 1 }) },
    { id: 2001, ...categoryRecord({ name: 'Rolls', menu_order: 1, organization_id: 2 }) },
    { id: 2002, ...categoryRecord({ name: 'Soups', menu_order: 2, organization_id: 2 }) },
  ];
  const margherita = dish(10001, 1001, 1, 1, 'Margherita', '9.50', {
    description: 'Tomato sauce, fior di latte and fresh basil on a wood-fired Neapolitan base.',
    weight: '450',
    ingredients: 'San Marzano tomatoes, mozzarella fior di latte, fresh basil, extra virgin olive oil, sea salt',
    can_zoom: true,
    external_id: 'pp-margherita',
    options: [
      {
        name: 'Size',
        multiple: false,
        items: [
          { name: '30 cm', price: 0 },
          { name: '40 cm', price: '4.00' },
        ],
      },
      {
        name: 'Extra toppings',
        multiple: true,
        min: 0,
        max: 3,
        items: [
          { name: 'Mozzarella', price: 1.5 },
          { name: 'Basil', price: '0.50' },
          { name: 'Salami', price: 2 },
        ],
      },
    ],
  });
  const diavolo = dish(10002, 1001, 1, 2, 'Diavolo', '11.90', {
    description: 'Spicy salami, chili oil, mozzarella.',
    weight: '480',
    external_id: 'pp-diavolo',
    options: [
      {
        name: 'Size',
        multiple: false,
        items: [
          { name: '30 cm', price: 0 },
          { name: '40 cm', price: '4.00' },
        ],
      },
    ],
  });
  const cola = dish(10003, 1002, 1, 1, 'Cola 0.33 l', '2.50', { weight: '330', external_id: 'pp-cola' });
  const california = dish(20001, 2001, 2, 1, 'California Roll', '8.90', {
    description: 'Crab, avocado, cucumber, tobiko; 8 pieces.',
    weight: '220',
    external_id: 'ss-california',
    options: [
      {
        name: 'Sauce',
        multiple: true,
        min: 0,
        max: 2,
        items: [
          { name: 'Spicy mayo', price: '0.80' },
          { name: 'Unagi sauce', price: '0.80' },
        ],
      },
    ],
  });
  const salmon = dish(20002, 2001, 2, 2, 'Salmon Nigiri', '6.40', { weight: '120', external_id: 'ss-salmon-nigiri' });
  const miso = dish(20003, 2002, 2, 1, 'Miso Soup', '3.90', { weight: '300', external_id: 'ss-miso' });
  const dishes = [margherita, diavolo, cola, california, salmon, miso];

  const publishedAt = at(60 * 24 * 7);
  const publishedMenus: PublishedMenuRecord[] = [1, 2].map((orgId) => ({
    id: orgId,
    organization_id: orgId,
    version: 1,
    published_at: publishedAt,
    categories: categories
      .filter((c) => c.organization_id === orgId)
      .map((c) => ({ ...c, draft_dish_ids: dishes.filter((d) => d.draft_category_id === c.id).map((d) => d.id) })),
    dishes: dishes.filter((d) => d.organization_id === orgId),
  }));

  const deliveryZones = [
    zone(
      101,
      'Kreuzberg',
      11,
      1,
      'POLYGON((13.3850 52.4870, 13.4420 52.4860, 13.4480 52.5030, 13.4120 52.5080, 13.3830 52.5010, 13.3850 52.4870))',
      { price: 2.5, free: 25, min: 12, time: 35 },
    ),
    zone(
      102,
      'Prenzlauer Berg',
      12,
      1,
      'POLYGON((13.3980 52.5290, 13.4450 52.5280, 13.4500 52.5480, 13.4100 52.5520, 13.3960 52.5410, 13.3980 52.5290))',
      { price: 2.9, free: 30, min: 12, time: 40 },
    ),
    zone(
      201,
      'Mitte',
      21,
      2,
      'POLYGON((13.3700 52.5150, 13.4150 52.5140, 13.4180 52.5330, 13.3750 52.5340, 13.3700 52.5150))',
      { price: 3, min: 15, time: 45 },
    ),
    zone(
      202,
      'Friedrichshain',
      22,
      2,
      'POLYGON((13.4300 52.5020, 13.4800 52.5000, 13.4820 52.5200, 13.4330 52.5220, 13.4300 52.5020))',
      { price: 3, free: 40, min: 15, time: 45 },
    ),
  ];

  const client = (
    id: number,
    organizationId: number,
    name: string,
    phone: string,
    email: string,
    address: string,
  ): ClientRecord => ({
    id,
    organization_id: organizationId,
    external_id: null,
    name,
    email,
    gender: null,
    birthdate: null,
    registered_at: at(60 * 24 * 90),
    comment: null,
    addresses: [address],
    phone_numbers: [phone],
    tags: [],
    is_blacklisted: false,
  });
  const clients = [
    client(7001, 1, 'Jonas Becker', '+49 170 1112233', 'jonas.becker@example.com', 'Wiener Straße 18, Berlin'),
    client(7002, 1, 'Mia Hoffmann', '+49 171 2223344', 'mia.hoffmann@example.com', 'Stargarder Straße 7, Berlin'),
    client(7003, 2, 'Paul Richter', '+49 172 3334455', 'paul.richter@example.com', 'Boxhagener Straße 30, Berlin'),
  ];

  const seedOrders: SeedOrder[] = [
    {
      id: 5001,
      prefix: 'PP',
      restaurantId: 11,
      organizationId: 1,
      zoneId: 101,
      status: 'delivery',
      courierId: 501,
      clientId: 7001,
      contact: ['Jonas Becker', '+49 170 1112233'],
      address: ['Wiener Straße 18', '4', '2'],
      point: [13.431, 52.4975],
      payment: 'cash',
      change: 50,
      minutesAgo: 25,
      deliveryPrice: '2.50',
      lines: [
        {
          dish: margherita,
          amount: 1,
          config: [
            ['Size', '40 cm', '4.00'],
            ['Extra toppings', 'Mozzarella', '1.50'],
          ],
        },
        { dish: cola, amount: 1 },
      ],
    },
    {
      id: 5002,
      prefix: 'PP',
      restaurantId: 12,
      organizationId: 1,
      zoneId: 102,
      status: 'pending',
      courierId: null,
      clientId: 7002,
      contact: ['Mia Hoffmann', '+49 171 2223344'],
      address: ['Stargarder Straße 7', '12', '3'],
      point: [13.4185, 52.5445],
      payment: 'card',
      change: null,
      minutesAgo: 5,
      deliveryPrice: '2.90',
      lines: [{ dish: diavolo, amount: 2, config: [['Size', '30 cm', '0.00']] }],
    },
    {
      id: 5003,
      prefix: 'PP',
      restaurantId: 11,
      organizationId: 1,
      zoneId: 101,
      status: 'complete',
      courierId: 502,
      clientId: 7001,
      contact: ['Jonas Becker', '+49 170 1112233'],
      address: ['Wiener Straße 18', '4', '2'],
      point: [13.431, 52.4975],
      payment: 'courier_card',
      change: null,
      minutesAgo: 180,
      deliveryPrice: '0.00',
      lines: [
        { dish: margherita, amount: 2, config: [['Size', '40 cm', '4.00']] },
        { dish: cola, amount: 2 },
      ],
    },
    {
      id: 5004,
      prefix: 'PP',
      restaurantId: 11,
      organizationId: 1,
      zoneId: 101,
      status: 'cooking',
      courierId: 501,
      clientId: 7001,
      contact: ['Jonas Becker', '+49 170 1112233'],
      address: ['Reichenberger Straße 60', '1', '1'],
      point: [13.428, 52.4945],
      payment: 'cash',
      change: 20,
      minutesAgo: 12,
      deliveryPrice: '2.50',
      lines: [
        { dish: margherita, amount: 1, config: [['Size', '30 cm', '0.00']] },
        { dish: cola, amount: 1 },
      ],
    },
    {
      id: 5005,
      prefix: 'SS',
      restaurantId: 22,
      organizationId: 2,
      zoneId: 202,
      status: 'accepted',
      courierId: 601,
      clientId: 7003,
      contact: ['Paul Richter', '+49 172 3334455'],
      address: ['Boxhagener Straße 30', '8', '4'],
      point: [13.458, 52.511],
      payment: 'cash',
      change: null,
      minutesAgo: 8,
      deliveryPrice: '3.00',
      lines: [
        { dish: california, amount: 2, config: [['Sauce', 'Spicy mayo', '0.80']] },
        { dish: miso, amount: 1 },
      ],
    },
    {
      id: 5006,
      prefix: 'PP',
      restaurantId: 12,
      organizationId: 1,
      zoneId: 102,
      status: 'cancelled',
      courierId: null,
      clientId: 7002,
      contact: ['Mia Hoffmann', '+49 171 2223344'],
      address: ['Stargarder Straße 7', '12', '3'],
      point: [13.4185, 52.5445],
      payment: 'cash',
      change: null,
      minutesAgo: 300,
      deliveryPrice: '2.90',
      lines: [{ dish: cola, amount: 6 }],
    },
  ];

  const orders: OrderRecord[] = [];
  const orderItems: S['OrderItem'][] = [];
  const buddies: S['Buddy'][] = [];
  const payments: S['Payment'][] = [];
  let itemId = 60001;
  for (const seed of seedOrders) {
    const zoneRecord = deliveryZones.find((z) => z.id === seed.zoneId)!;
    const buddyId = 8000 + (seed.id - 5000);
    const itemIds: number[] = [];
    let totalCents = 0;
    for (const line of seed.lines) {
      const unit = cents(line.dish.price) + (line.config ?? []).reduce((sum, [, , price]) => sum + cents(price), 0);
      totalCents += unit * line.amount;
      itemIds.push(itemId);
      orderItems.push({
        id: itemId++,
        order_id: seed.id,
        buddy_id: buddyId,
        dish_id: line.dish.id,
        name: line.dish.name,
        amount: line.amount,
        item_price: money(unit),
        price: money(unit * line.amount),
        config: line.config ? line.config.map(([group, name, price]) => ({ group, name, price })) : null,
        config_text: line.config ? line.config.map(([group, name]) => `${group}: ${name}`).join('; ') : null,
        comment: null,
      });
    }
    buddies.push({
      id: buddyId,
      order_id: seed.id,
      name: seed.contact[0],
      item_ids: itemIds,
      total: money(totalCents),
    });
    const created = at(seed.minutesAgo);
    const cashless = seed.payment === 'card';
    const paymentId = cashless ? 9000 + (seed.id - 5000) : null;
    const finalCents = totalCents + cents(seed.deliveryPrice);
    if (paymentId) {
      payments.push({
        id: paymentId,
        order_id: seed.id,
        amount: money(finalCents),
        status: 'paid',
        created_at: created,
        paid_at: created,
      });
    }
    const [street, apartment, floor] = seed.address;
    const confirmed = seed.status !== 'pending' && seed.status !== 'cancelled';
    orders.push(
      orderRecord({
        id: seed.id,
        organizationName: organizations.find((organization) => organization.id === seed.organizationId)!.name,
        delivery_time: zoneRecord.delivery_time,
        contact_phone: seed.contact[1],
        contact_name: seed.contact[0],
        description: '',
        change: seed.change ?? 0,
        status: seed.status,
        created_at: created,
        courier_confirmed_at:
          seed.courierId && ['delivery', 'complete'].includes(seed.status) ? at(seed.minutesAgo - 10) : null,
        restaurant_confirmed_at: confirmed ? at(seed.minutesAgo - 2) : null,
        delivery_asap: true,
        delivery_at: at(seed.minutesAgo - zoneRecord.delivery_time),
        point: { lon: seed.point[0], lat: seed.point[1] },
        address: { city: 'Berlin', address: street, apartment, floor },
        payment_source: seed.payment,
        totalCents,
        deliveryPriceCents: cents(seed.deliveryPrice),
        restaurant_id: seed.restaurantId,
        client_id: seed.clientId,
        courier_id: seed.courierId,
        payment_id: paymentId,
        organization_id: seed.organizationId,
        delivery_zone_id: seed.zoneId,
        ...storefrontOrigin(),
        status_changed_at: created,
      }),
    );
  }

  const table = <T>(rows: T[]): { rows: T[] } => ({ rows });
  return {
    version: 1,
    apiUsers: table(apiUsers),
    sessions: table([]),
    staffMembers: table(staffMembers),
    dispatchers: table([{ id: 1, name: 'Dora Fischer' }]),
    couriers: table(couriers),
    organizations: table(organizations),
    restaurants: table(restaurants),
    draftCategories: table(categories),
    draftDishes: table(dishes),
    publishedMenus: table(publishedMenus),
    deliveryZones: table(deliveryZones),
    clients: table(clients),
    photos: table([]),
    orders: table(orders),
    orderItems: table(orderItems),
    buddies: table(buddies),
    payments: table(payments),
    importJobs: table([]),
    carriers: table([]),
    callbacks: table([]),
    notifications: table([]),
  };
}
