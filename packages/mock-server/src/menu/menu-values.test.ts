import { expect, test } from 'vitest';
import { configuratorProblems, normalizePrice, normalizeWeight } from './menu-values.js';

test('prices come back with exactly two decimals; more decimals or a negative amount are refused', () => {
  expect(normalizePrice(9.5)).toBe('9.50');
  expect(normalizePrice('9')).toBe('9.00');
  expect(normalizePrice(19.99)).toBe('19.99');
  expect(normalizePrice(0)).toBe('0.00');
  expect(normalizePrice(2.505)).toBeUndefined();
  expect(normalizePrice(-1)).toBeUndefined();
});

test('weights come back without trailing zeros, null stays null', () => {
  expect(normalizeWeight(450)).toBe('450');
  expect(normalizeWeight(450.0)).toBe('450');
  expect(normalizeWeight('450.00')).toBe('450');
  expect(normalizeWeight('12.50')).toBe('12.5');
  expect(normalizeWeight(0)).toBe('0');
  expect(normalizeWeight(null)).toBeNull();
  expect(normalizeWeight(undefined)).toBeNull();
  expect(normalizeWeight(1.234)).toBeUndefined();
});

test('configurator problems point into the body; min/max of a single-choice group are ignored', () => {
  const base = '/draft_dish/options';
  expect(configuratorProblems(null, base)).toEqual([]);
  expect(
    configuratorProblems([{ name: 'Size', multiple: false, min: 2, max: 1, items: [{ name: 'S', price: 0 }] }], base),
  ).toEqual([]);
  const problems = configuratorProblems(
    [
      { name: 'Extras', multiple: true, min: 2, max: 1, items: [{ name: 'A', price: 1.005 }] },
      { name: 'Extras', multiple: false, items: [{ name: 'B', price: 0 }] },
    ],
    base,
  );
  expect(problems.map((p) => [p.code, p.pointer])).toEqual([
    ['invalid_value', '/draft_dish/options/0/items/0/price'],
    ['invalid_configuration', '/draft_dish/options/0/max'],
    ['invalid_configuration', '/draft_dish/options/0/min'],
    ['invalid_configuration', '/draft_dish/options/1/name'],
  ]);
});
