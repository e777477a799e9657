import { Money, toCents } from './money.js';

/** One add-on of a configurator group; `price` is the extra over the dish price. */
export interface ConfiguratorItem {
  name: string;
  price: number | string;
}

/** One configurator group (the dish's `options`, the import's `modifiers`). */
export interface ConfiguratorGroup {
  name: string;
  items: ConfiguratorItem[];
  /** `false`: exactly one item must be chosen; `true`: between `min` and `max` items. */
  multiple: boolean;
  /** Least items to choose when `multiple`; default 0. */
  min?: number | string | null;
  /** Most items to choose when `multiple`; default all of them. */
  max?: number | string | null;
}

/** What pricing needs from a dish. */
export interface PricedDish {
  price: number | string;
  options?: readonly ConfiguratorGroup[] | null;
}

/** The items chosen in one group, both by name: `{ group: 'Size', items: ['40 cm'] }`. */
export interface OptionChoice {
  group: string;
  items: string[];
}

/** A pricing problem: a JSON pointer (relative to the order line, or to the order) and an English sentence. */
export interface PricingProblem {
  pointer: string;
  detail: string;
}

/** A priced order line; amounts are decimal strings with two decimals. */
export interface LinePrice {
  /** Dish price plus the chosen add-ons. */
  unitPrice: string;
  /** `unitPrice` × amount. */
  linePrice: string;
  /** Chosen options in the dish's order, e.g. `Size: 40 cm; Extra toppings: Mozzarella`; `null` for none. */
  configText: string | null;
}

/** Outcome of {@link priceLine}. */
export type LinePriceResult = ({ ok: true } & LinePrice) | { ok: false; errors: PricingProblem[] };

/** Delivery terms of a zone, as `DeliveryZone` carries them. */
export interface DeliveryTerms {
  /** Delivery price; `null` counts as free. */
  price: number | string | null;
  free_delivery_count?: number | string | null;
  free_delivery_price?: number | string | null;
  minimal_order_price?: number | string | null;
}

/** A zone's delivery terms in cents, for pricing many orders at once (imports). */
export interface DeliveryTermsInCents {
  price: number;
  freePrice: number | null;
  freeCount: number | null;
}

/** The terms of a zone in cents (a `null` price counts as free). */
export function termsInCents(zone: DeliveryTerms): DeliveryTermsInCents {
  return {
    price: zone.price === null ? 0 : toCents(zone.price),
    freePrice: zone.free_delivery_price == null ? null : toCents(zone.free_delivery_price),
    freeCount: zone.free_delivery_count == null ? null : Number(zone.free_delivery_count),
  };
}

/**
 * The free-delivery rule of a zone: free once the dish count reaches `freeCount` or the items total
 * reaches `freePrice` (in cents), each only when set.
 */
export function deliversFree(
  dishCount: number,
  itemsCents: number,
  terms: Pick<DeliveryTermsInCents, 'freeCount' | 'freePrice'>,
): boolean {
  return (
    (terms.freeCount !== null && dishCount >= terms.freeCount) ||
    (terms.freePrice !== null && itemsCents >= terms.freePrice)
  );
}

/** The delivery price of an order in a zone, in cents: the zone's price unless {@link deliversFree}. */
export function deliveryPriceCents(terms: DeliveryTermsInCents, itemsCents: number, dishCount: number): number {
  return deliversFree(dishCount, itemsCents, terms) ? 0 : terms.price;
}

/** A line as {@link priceOrder} needs it: the amount and the priced line total. */
export interface PricedLine {
  amount: number;
  linePrice: string;
}

/** Order totals; amounts are decimal strings with two decimals. */
export interface OrderTotals {
  /** Price of all dishes (the order's `total`). */
  itemsTotal: string;
  deliveryPrice: string;
  /** `itemsTotal` + `deliveryPrice` (the order's `final_sum`). */
  finalSum: string;
  /** Number of dishes: the sum of the line amounts. */
  dishCount: number;
  freeDelivery: boolean;
}

/** Outcome of {@link priceOrder}: totals are computed even when the order is refused, for the message. */
export type OrderPriceResult = ({ ok: true } & OrderTotals) | ({ ok: false; errors: PricingProblem[] } & OrderTotals);

/**
 * Checks a configurator (a dish's `options`) for what pricing relies on: unique non-empty group and
 * item names, at least one item per group, prices of whole cents, `min`/`max` non-negative integers
 * with min ≤ max and min ≤ item count. Pointers are relative to the options array. Empty when valid.
 */
export function configuratorErrors(options: readonly ConfiguratorGroup[] | null | undefined): PricingProblem[] {
  if (options === null || options === undefined) return [];
  if (!Array.isArray(options)) return [{ pointer: '', detail: 'options must be null or an array of groups' }];
  const problems: PricingProblem[] = [];
  const groupNames = new Set<string>();
  // Loops rather than `forEach` callbacks: two closures made per call showed under load (each new closure's
  // first call goes through V8's lazy-compile stub). Holes are skipped, as `forEach` skips them.
  for (let g = 0; g < options.length; g++) {
    if (!(g in options)) continue;
    const group = options[g] as ConfiguratorGroup;
    if (!isName(group?.name)) {
      problems.push({ pointer: `/${g}/name`, detail: 'a group needs a non-empty name' });
    } else if (groupNames.has(group.name)) {
      problems.push({ pointer: `/${g}/name`, detail: `group name "${group.name}" is used twice` });
    } else {
      groupNames.add(group.name);
    }
    if (typeof group?.multiple !== 'boolean') {
      problems.push({ pointer: `/${g}/multiple`, detail: 'multiple must be true or false' });
    }
    const items: unknown = group?.items;
    if (!Array.isArray(items) || items.length === 0) {
      problems.push({ pointer: `/${g}/items`, detail: 'a group needs at least one item' });
      continue;
    }
    const itemNames = new Set<string>();
    for (let i = 0; i < items.length; i++) {
      if (!(i in items)) continue;
      const item = items[i] as ConfiguratorItem;
      if (!isName(item?.name)) {
        problems.push({ pointer: `/${g}/items/${i}/name`, detail: 'an item needs a non-empty name' });
      } else if (itemNames.has(item.name)) {
        problems.push({
          pointer: `/${g}/items/${i}/name`,
          detail: `item name "${item.name}" is used twice in this group`,
        });
      } else {
        itemNames.add(item.name);
      }
      if (!Money.isAmount(item?.price)) {
        problems.push({
          pointer: `/${g}/items/${i}/price`,
          detail: 'price must be a number or numeric string with at most two decimals',
        });
      }
    }
    const min = parseCount(group.min);
    const max = parseCount(group.max);
    if (min === undefined) problems.push({ pointer: `/${g}/min`, detail: 'min must be a non-negative integer' });
    if (max === undefined) problems.push({ pointer: `/${g}/max`, detail: 'max must be a non-negative integer' });
    // A single-choice group ignores min and max (exactly one is chosen), so only their form is checked.
    if (
      group.multiple === true &&
      min !== undefined &&
      max !== undefined &&
      min !== null &&
      max !== null &&
      max < min
    ) {
      problems.push({ pointer: `/${g}/max`, detail: `max (${max}) is below min (${min})` });
    }
    if (group.multiple === true && min !== undefined && min !== null && min > items.length) {
      problems.push({
        pointer: `/${g}/min`,
        detail: `min (${min}) is more than the ${items.length} item(s) of the group`,
      });
    }
  }
  return problems;
}

/**
 * Prices one order line from the dish and the chosen options. Each single-choice group needs exactly
 * one item; each multiple-choice group between `min` (default 0) and `max` (default all) distinct
 * items. Names match exactly (case-sensitive). Problems point into the line: `/amount`, `/config`,
 * `/config/1/group`, `/config/1/items`, `/config/1/items/0`. Throws a `RangeError` when the dish
 * itself is invalid (check it with {@link configuratorErrors} when it is stored).
 */
export function priceLine(
  dish: PricedDish,
  choices: readonly OptionChoice[] | null | undefined,
  amount: number,
): LinePriceResult {
  const basePrice = Money.of(dish.price);
  const groups = dish.options ?? [];
  const broken = configuratorErrors(groups)[0];
  if (broken) throw new RangeError(`invalid dish options at ${broken.pointer}: ${broken.detail}`);

  const problems: PricingProblem[] = [];
  if (!Number.isSafeInteger(amount) || amount < 1) {
    problems.push({ pointer: '/amount', detail: 'amount must be a whole number of at least 1' });
  }
  const chosen = new Map<ConfiguratorGroup, Set<string>>();
  const chosenAt = new Map<ConfiguratorGroup, number>();
  const list: unknown = choices ?? [];
  if (!Array.isArray(list)) {
    return {
      ok: false,
      errors: [...problems, { pointer: '/config', detail: 'config must be an array of { group, items }' }],
    };
  }

  list.forEach((choice: OptionChoice, c) => {
    if (typeof choice?.group !== 'string') {
      problems.push({
        pointer: `/config/${c}/group`,
        detail: 'group must be the name of one of the dish option groups',
      });
      return;
    }
    const group = groups.find((candidate) => candidate.name === choice.group);
    if (!group) {
      problems.push({ pointer: `/config/${c}/group`, detail: unknownGroup(choice.group, groups) });
      return;
    }
    const earlier = chosenAt.get(group);
    if (earlier !== undefined) {
      problems.push({
        pointer: `/config/${c}/group`,
        detail: `group "${group.name}" is chosen twice (also at /config/${earlier})`,
      });
      return;
    }
    chosenAt.set(group, c);
    const names = new Set<string>();
    chosen.set(group, names);
    const items: unknown = choice.items;
    if (!Array.isArray(items)) {
      problems.push({ pointer: `/config/${c}/items`, detail: 'items must be an array of item names' });
      return;
    }
    let itemProblems = false;
    items.forEach((name: unknown, i) => {
      const pointer = `/config/${c}/items/${i}`;
      if (typeof name !== 'string' || !group.items.some((item) => item.name === name)) {
        problems.push({ pointer, detail: unknownItem(name, group) });
        itemProblems = true;
      } else if (names.has(name)) {
        problems.push({ pointer, detail: `"${name}" is chosen twice in "${group.name}"` });
        itemProblems = true;
      } else {
        names.add(name);
      }
    });
    // A count message on top of "unknown item" would only repeat the same mistake.
    if (!itemProblems) {
      const countProblem = checkCount(group, names.size);
      if (countProblem) problems.push({ pointer: `/config/${c}/items`, detail: countProblem });
    }
  });

  for (const group of groups) {
    if (chosenAt.has(group)) continue;
    const countProblem = checkCount(group, 0);
    if (countProblem) problems.push({ pointer: '/config', detail: countProblem });
  }
  if (problems.length > 0) return { ok: false, errors: problems };

  let unitPrice = basePrice;
  const parts: string[] = [];
  for (const group of groups) {
    const names = chosen.get(group);
    const picked = group.items.filter((item) => names?.has(item.name));
    if (picked.length === 0) continue;
    unitPrice = unitPrice.plus(Money.sum(picked.map((item) => Money.of(item.price))));
    parts.push(`${group.name}: ${picked.map((item) => item.name).join(', ')}`);
  }
  if (unitPrice.isNegative()) {
    return {
      ok: false,
      errors: [{ pointer: '/config', detail: `the chosen options make the price negative (${unitPrice})` }],
    };
  }
  return {
    ok: true,
    unitPrice: unitPrice.toString(),
    linePrice: unitPrice.times(amount).toString(),
    configText: parts.length > 0 ? parts.join('; ') : null,
  };
}

/**
 * Totals an order in a zone: items total, delivery price (free once the dish count reaches
 * `free_delivery_count` or the items total reaches `free_delivery_price`, each when not null) and the
 * final sum. Refuses an order without lines or below `minimal_order_price`, pointing at `/items` of the
 * order. Throws a `RangeError` for malformed zone amounts or line prices (stored data, not input).
 */
export function priceOrder(lines: readonly PricedLine[], zone: DeliveryTerms): OrderPriceResult {
  const itemsTotal = Money.sum(lines.map((line) => Money.of(line.linePrice)));
  const dishCount = lines.reduce((count, line) => count + line.amount, 0);
  const freeCount = parseCount(zone.free_delivery_count);
  if (freeCount === undefined)
    throw new RangeError(`free_delivery_count is not a count: ${String(zone.free_delivery_count)}`);
  const freePrice = optionalMoney(zone.free_delivery_price);
  const minimal = optionalMoney(zone.minimal_order_price);
  const price = optionalMoney(zone.price) ?? Money.ZERO;

  const freeDelivery = deliversFree(dishCount, itemsTotal.toMinorUnits(), {
    freeCount,
    freePrice: freePrice === null ? null : freePrice.toMinorUnits(),
  });
  const deliveryPrice = freeDelivery ? Money.ZERO : price;
  const totals: OrderTotals = {
    itemsTotal: itemsTotal.toString(),
    deliveryPrice: deliveryPrice.toString(),
    finalSum: itemsTotal.plus(deliveryPrice).toString(),
    dishCount,
    freeDelivery,
  };

  const errors: PricingProblem[] = [];
  if (lines.length === 0) {
    errors.push({ pointer: '/items', detail: 'an order needs at least one dish' });
  } else if (minimal !== null && itemsTotal.lessThan(minimal)) {
    errors.push({
      pointer: '/items',
      detail: `the dishes cost ${itemsTotal}, below the zone's minimal order price of ${minimal}`,
    });
  }
  return errors.length > 0 ? { ok: false, errors, ...totals } : { ok: true, ...totals };
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** `null` when absent, the integer when a non-negative integer (number or digits), `undefined` when invalid. */
function parseCount(value: number | string | null | undefined): number | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

function optionalMoney(value: number | string | null | undefined): Money | null {
  return value === null || value === undefined ? null : Money.of(value);
}

/** Why `count` distinct items do not suit `group`, or `undefined` when they do. */
function checkCount(group: ConfiguratorGroup, count: number): string | undefined {
  if (!group.multiple) {
    return count === 1 ? undefined : `choose exactly one item of "${group.name}", got ${count}`;
  }
  const min = parseCount(group.min) ?? 0;
  const max = parseCount(group.max) ?? group.items.length;
  if (count >= min && count <= max) return undefined;
  const range = min === max ? `exactly ${min}` : count < min ? `at least ${min}` : `at most ${max}`;
  return `choose ${range} item(s) of "${group.name}", got ${count}`;
}

function unknownGroup(name: string, groups: readonly ConfiguratorGroup[]): string {
  if (groups.length === 0) return `the dish has no options, so there is no group "${name}"`;
  return `the dish has no option group "${name}"; its groups are ${groups.map((g) => `"${g.name}"`).join(', ')}`;
}

function unknownItem(name: unknown, group: ConfiguratorGroup): string {
  const known = group.items.map((item) => `"${item.name}"`).join(', ');
  return typeof name === 'string'
    ? `"${group.name}" has no item "${name}"; its items are ${known}`
    : `items must be item names of "${group.name}": ${known}`;
}
