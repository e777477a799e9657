import { expect, test } from 'vitest';
import {
  configuratorErrors,
  deliveryPriceCents,
  deliversFree,
  priceLine,
  priceOrder,
  termsInCents,
  type ConfiguratorGroup,
  type ConfiguratorItem,
  type PricedDish,
} from './pricing.js';

/** Draft dish 10001 of the example world. */
const MARGHERITA: PricedDish = {
  price: '9.50',
  options: [
    {
      name: 'Size',
      multiple: false,
      items: [
        { name: '30 cm', price: 0 },
        { name: '40 cm', price: 4.0 },
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
        { name: 'Salami', price: 2.0 },
      ],
    },
  ],
};
const COLA: PricedDish = { price: '2.50', options: null };

/** Delivery zone 101 Kreuzberg. */
const KREUZBERG = { price: 2.5, free_delivery_count: null, free_delivery_price: 25, minimal_order_price: 12 };

test('the example order line: Margherita 40 cm with Mozzarella costs 15.00', () => {
  const line = priceLine(
    MARGHERITA,
    [
      { group: 'Size', items: ['40 cm'] },
      { group: 'Extra toppings', items: ['Mozzarella'] },
    ],
    1,
  );
  expect(line).toEqual({
    ok: true,
    unitPrice: '15.00',
    linePrice: '15.00',
    configText: 'Size: 40 cm; Extra toppings: Mozzarella',
  });
});

test('config text follows the dish order, whatever order the choices come in', () => {
  const line = priceLine(
    MARGHERITA,
    [
      { group: 'Extra toppings', items: ['Salami', 'Mozzarella'] },
      { group: 'Size', items: ['30 cm'] },
    ],
    2,
  );
  expect(line).toEqual({
    ok: true,
    unitPrice: '13.00',
    linePrice: '26.00',
    configText: 'Size: 30 cm; Extra toppings: Mozzarella, Salami',
  });
});

test('a dish without options has no config text, and amounts multiply exactly', () => {
  expect(priceLine(COLA, [], 3)).toEqual({ ok: true, unitPrice: '2.50', linePrice: '7.50', configText: null });
  expect(priceLine({ price: '3.30' }, undefined, 3)).toMatchObject({ ok: true, linePrice: '9.90' });
});

test('a multiple group with min 0 may be left out', () => {
  expect(priceLine(MARGHERITA, [{ group: 'Size', items: ['30 cm'] }], 1)).toMatchObject({
    ok: true,
    unitPrice: '9.50',
    configText: 'Size: 30 cm',
  });
  expect(
    priceLine(
      MARGHERITA,
      [
        { group: 'Size', items: ['30 cm'] },
        { group: 'Extra toppings', items: [] },
      ],
      1,
    ),
  ).toMatchObject({ ok: true, configText: 'Size: 30 cm' });
});

test('a single-choice group must get exactly one item', () => {
  expect(priceLine(MARGHERITA, [], 1)).toEqual({
    ok: false,
    errors: [{ pointer: '/config', detail: 'choose exactly one item of "Size", got 0' }],
  });
  expect(priceLine(MARGHERITA, [{ group: 'Size', items: ['30 cm', '40 cm'] }], 1)).toEqual({
    ok: false,
    errors: [{ pointer: '/config/0/items', detail: 'choose exactly one item of "Size", got 2' }],
  });
});

test('a multiple-choice group is bounded by max', () => {
  const tooMany = priceLine(
    MARGHERITA,
    [
      { group: 'Size', items: ['30 cm'] },
      { group: 'Extra toppings', items: ['Mozzarella', 'Basil', 'Salami', 'Pineapple'] },
    ],
    1,
  );
  // The unknown item is the real mistake; no count message on top of it.
  expect(tooMany).toEqual({
    ok: false,
    errors: [
      {
        pointer: '/config/1/items/3',
        detail: '"Extra toppings" has no item "Pineapple"; its items are "Mozzarella", "Basil", "Salami"',
      },
    ],
  });
  const capped: PricedDish = { price: 5, options: [{ ...(MARGHERITA.options?.[1] as ConfiguratorGroup), max: '2' }] };
  expect(priceLine(capped, [{ group: 'Extra toppings', items: ['Mozzarella', 'Basil', 'Salami'] }], 1)).toEqual({
    ok: false,
    errors: [{ pointer: '/config/0/items', detail: 'choose at most 2 item(s) of "Extra toppings", got 3' }],
  });
});

test('min given as a numeric string makes a multiple group required', () => {
  const sauces: PricedDish = {
    price: '6.00',
    options: [
      {
        name: 'Sauces',
        multiple: true,
        min: '1',
        max: '2',
        items: [
          { name: 'Ketchup', price: '0' },
          { name: 'Mayo', price: '0.30' },
          { name: 'Aioli', price: '0.50' },
        ],
      },
    ],
  };
  expect(priceLine(sauces, [], 1)).toEqual({
    ok: false,
    errors: [{ pointer: '/config', detail: 'choose at least 1 item(s) of "Sauces", got 0' }],
  });
  expect(priceLine(sauces, [{ group: 'Sauces', items: ['Aioli', 'Mayo'] }], 2)).toEqual({
    ok: true,
    unitPrice: '6.80',
    linePrice: '13.60',
    configText: 'Sauces: Mayo, Aioli',
  });
});

test('unknown groups, duplicate groups and duplicate items are each reported where they are', () => {
  const result = priceLine(
    MARGHERITA,
    [
      { group: 'Size', items: ['40 cm'] },
      { group: 'Crust', items: ['Thin'] },
      { group: 'Size', items: ['30 cm'] },
      { group: 'Extra toppings', items: ['Basil', 'Basil'] },
    ],
    1,
  );
  expect(result).toEqual({
    ok: false,
    errors: [
      {
        pointer: '/config/1/group',
        detail: 'the dish has no option group "Crust"; its groups are "Size", "Extra toppings"',
      },
      { pointer: '/config/2/group', detail: 'group "Size" is chosen twice (also at /config/0)' },
      { pointer: '/config/3/items/1', detail: '"Basil" is chosen twice in "Extra toppings"' },
    ],
  });
});

test('choosing options on a dish without options is refused', () => {
  expect(priceLine(COLA, [{ group: 'Ice', items: ['Yes'] }], 1)).toEqual({
    ok: false,
    errors: [{ pointer: '/config/0/group', detail: 'the dish has no options, so there is no group "Ice"' }],
  });
});

test('malformed choices from a client body are reported, not thrown', () => {
  const result = priceLine(
    MARGHERITA,
    [
      { group: 42, items: ['30 cm'] },
      { group: 'Size', items: '30 cm' },
    ] as never,
    1,
  );
  expect(result).toEqual({
    ok: false,
    errors: [
      { pointer: '/config/0/group', detail: 'group must be the name of one of the dish option groups' },
      { pointer: '/config/1/items', detail: 'items must be an array of item names' },
    ],
  });
  expect(priceLine(COLA, 'none' as never, 1)).toEqual({
    ok: false,
    errors: [{ pointer: '/config', detail: 'config must be an array of { group, items }' }],
  });
});

test('the amount must be a positive whole number', () => {
  for (const amount of [0, -1, 1.5, Number.NaN]) {
    expect(priceLine(COLA, [], amount)).toEqual({
      ok: false,
      errors: [{ pointer: '/amount', detail: 'amount must be a whole number of at least 1' }],
    });
  }
});

test('negative add-ons are allowed as long as the unit price stays non-negative', () => {
  const small: PricedDish = {
    price: '1.00',
    options: [
      {
        name: 'Size',
        multiple: false,
        items: [
          { name: 'Kids', price: '-0.50' },
          { name: 'Tiny', price: -2 },
        ],
      },
    ],
  };
  expect(priceLine(small, [{ group: 'Size', items: ['Kids'] }], 1)).toMatchObject({ ok: true, unitPrice: '0.50' });
  expect(priceLine(small, [{ group: 'Size', items: ['Tiny'] }], 1)).toEqual({
    ok: false,
    errors: [{ pointer: '/config', detail: 'the chosen options make the price negative (-1.00)' }],
  });
});

test('an invalid stored dish throws instead of being priced', () => {
  expect(() => priceLine({ price: 'free' }, [], 1)).toThrow(RangeError);
  expect(() => priceLine({ price: 1, options: [{ name: 'Size', multiple: false, items: [] }] }, [], 1)).toThrow(
    'invalid dish options at /0/items: a group needs at least one item',
  );
});

test('configuratorErrors accepts the example configurator and pinpoints broken ones', () => {
  expect(configuratorErrors(MARGHERITA.options)).toEqual([]);
  expect(configuratorErrors(null)).toEqual([]);
  expect(
    configuratorErrors([
      { name: 'Size', multiple: false, items: [{ name: 'S', price: 0 }] },
      {
        name: 'Size',
        multiple: 'yes' as never,
        min: 3,
        max: '1',
        items: [
          { name: 'A', price: '0.505' },
          { name: 'A', price: 1 },
        ],
      },
      { name: '', multiple: true, min: -1, max: 1.5, items: [{ name: 'X', price: 0 }] },
      { name: 'Extras', multiple: true, min: 4, items: [{ name: 'X', price: 0 }] },
    ]),
  ).toEqual([
    { pointer: '/1/name', detail: 'group name "Size" is used twice' },
    { pointer: '/1/multiple', detail: 'multiple must be true or false' },
    { pointer: '/1/items/0/price', detail: 'price must be a number or numeric string with at most two decimals' },
    { pointer: '/1/items/1/name', detail: 'item name "A" is used twice in this group' },
    { pointer: '/2/name', detail: 'a group needs a non-empty name' },
    { pointer: '/2/min', detail: 'min must be a non-negative integer' },
    { pointer: '/2/max', detail: 'max must be a non-negative integer' },
    { pointer: '/3/min', detail: 'min (4) is more than the 1 item(s) of the group' },
  ]);
});

test('configuratorErrors goes on past a group without items, and skips holes as forEach did', () => {
  const item = { name: 'X', price: 0 };
  expect(
    configuratorErrors([
      { name: 'Empty', multiple: false, items: [] },
      { name: '', multiple: false, items: [item] },
    ]),
  ).toEqual([
    { pointer: '/0/items', detail: 'a group needs at least one item' },
    { pointer: '/1/name', detail: 'a group needs a non-empty name' },
  ]);
  // A sparse array (not JSON, but a programmatic caller's) is read as before: holes are not groups or items.
  // eslint-disable-next-line no-sparse-arrays
  const sparseGroups = [, { name: 'Size', multiple: false, items: [item] }] as ConfiguratorGroup[];
  // eslint-disable-next-line no-sparse-arrays
  const sparseItems = [{ name: 'Size', multiple: false, items: [, item] as ConfiguratorItem[] }];
  expect(configuratorErrors(sparseGroups)).toEqual([]);
  expect(configuratorErrors(sparseItems)).toEqual([]);
});

test('max below min is refused for a multiple-choice group and ignored for a single-choice one', () => {
  const items = [
    { name: 'A', price: 0 },
    { name: 'B', price: 1 },
  ];
  expect(configuratorErrors([{ name: 'Sauce', multiple: true, min: 2, max: 1, items }])).toEqual([
    { pointer: '/0/max', detail: 'max (1) is below min (2)' },
  ]);
  expect(configuratorErrors([{ name: 'Size', multiple: false, min: 2, max: 1, items }])).toEqual([]);
});

test('the example order: 15.00 + 2.50 dishes, 2.50 delivery, 20.00 to pay', () => {
  const result = priceOrder(
    [
      { amount: 1, linePrice: '15.00' },
      { amount: 1, linePrice: '2.50' },
    ],
    KREUZBERG,
  );
  expect(result).toEqual({
    ok: true,
    itemsTotal: '17.50',
    deliveryPrice: '2.50',
    finalSum: '20.00',
    dishCount: 2,
    freeDelivery: false,
  });
});

test('delivery is free from the free_delivery_price on, inclusive', () => {
  expect(priceOrder([{ amount: 2, linePrice: '25.00' }], KREUZBERG)).toMatchObject({
    ok: true,
    deliveryPrice: '0.00',
    finalSum: '25.00',
    freeDelivery: true,
  });
  expect(priceOrder([{ amount: 2, linePrice: '24.99' }], KREUZBERG)).toMatchObject({
    deliveryPrice: '2.50',
    finalSum: '27.49',
  });
});

test('delivery is free from the free_delivery_count of dishes on', () => {
  const zone = { price: '3.00', free_delivery_count: 5, free_delivery_price: null, minimal_order_price: null };
  const lines = [
    { amount: 3, linePrice: '7.50' },
    { amount: 2, linePrice: '5.00' },
  ];
  expect(priceOrder(lines, zone)).toMatchObject({ ok: true, dishCount: 5, deliveryPrice: '0.00', finalSum: '12.50' });
  expect(priceOrder(lines.slice(0, 1), zone)).toMatchObject({ dishCount: 3, deliveryPrice: '3.00', finalSum: '10.50' });
});

test('null thresholds never make delivery free', () => {
  const zone = { price: 1.99, free_delivery_count: null, free_delivery_price: null, minimal_order_price: null };
  expect(priceOrder([{ amount: 100, linePrice: '1000.00' }], zone)).toMatchObject({
    deliveryPrice: '1.99',
    finalSum: '1001.99',
  });
});

test('an order below the minimal order price is refused, with the totals for the message', () => {
  expect(priceOrder([{ amount: 1, linePrice: '11.90' }], KREUZBERG)).toEqual({
    ok: false,
    errors: [{ pointer: '/items', detail: "the dishes cost 11.90, below the zone's minimal order price of 12.00" }],
    itemsTotal: '11.90',
    deliveryPrice: '2.50',
    finalSum: '14.40',
    dishCount: 1,
    freeDelivery: false,
  });
  expect(priceOrder([{ amount: 1, linePrice: '12.00' }], KREUZBERG).ok).toBe(true);
});

test('an order without dishes is refused', () => {
  expect(priceOrder([], { price: 0 })).toMatchObject({
    ok: false,
    errors: [{ pointer: '/items', detail: 'an order needs at least one dish' }],
    finalSum: '0.00',
  });
});

test('malformed zone amounts throw', () => {
  expect(() => priceOrder([{ amount: 1, linePrice: '1.00' }], { price: 'cheap' })).toThrow(RangeError);
  expect(() => priceOrder([{ amount: 1, linePrice: '1.00' }], { price: 1, free_delivery_count: -1 })).toThrow(
    RangeError,
  );
});

test('imports price delivery in cents by the same free-delivery rule as priceOrder', () => {
  const terms = termsInCents({ price: '2.50', free_delivery_count: 5, free_delivery_price: '30.00' });
  expect(terms).toEqual({ price: 250, freePrice: 3000, freeCount: 5 });
  expect(deliveryPriceCents(terms, 2999, 4)).toBe(250);
  expect(deliveryPriceCents(terms, 3000, 4)).toBe(0);
  expect(deliveryPriceCents(terms, 100, 5)).toBe(0);
  expect(deliversFree(9, 100_000, { freeCount: null, freePrice: null })).toBe(false);
  expect(termsInCents({ price: null, free_delivery_count: null, free_delivery_price: null }).price).toBe(0);
});
