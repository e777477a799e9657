/**
 * Who orders and where to, in the storefront order (`POST /__mock/orders`) the demo, its test and the
 * consumer-project check (scripts/consumer) place:
 * a Berlin address inside Pizza Piccolo's delivery zone. Each adds its own `items`.
 */
export const DEMO_ORDER = {
  organization_id: 1,
  latitude: 52.4975,
  longitude: 13.431,
  city: 'Berlin',
  address: 'Wiener Straße 18',
  contact_name: 'Jonas Becker',
  contact_phone: '+49 170 1112233',
  payment_source: 'cash',
} as const;
