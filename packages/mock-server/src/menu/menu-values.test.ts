import fc from 'fast-check';
import { expect, test } from 'vitest';
import { Money } from '../model/money.js';
import { configuratorProblems, normalizePrice, normalizeWeight } from './menu-values.js';
import { amountSpelling } from '../../test/support/amount-spellings.js';

test('prices come back with exactly two decimals; more decimals or a negative amount are refused', () => {
  expect(normalizePrice(9.5)).toBe('9.50');
  expect(normalizePrice('9')).toBe('9.00');
  expect(normalizePrice(19.99)).toBe('19.99');
  expect(normalizePrice(0)).toBe('0.00');
  expect(normalizePrice(2.505)).toBeUndefined();
  expect(normalizePrice(-1)).toBeUndefined();
});

test('the quick path for plain prices gives what the exact parser gives, for any spelling', () => {
  const exact = (value: number | string): string | undefined => {
    const amount = Money.parse(value);
    return amount && !amount.isNegative() ? amount.toString() : undefined;
  };
  for (const value of [
    '09.5',
    '9.500',
    '9.505',
    '-0',
    '-0.00',
    '0.0',
    '.5',
    '5.',
    '1e3',
    '0x1',
    ' 1',
    '1 ',
    '',
    1e21,
    5e-7,
    -0,
  ])
    expect(normalizePrice(value), String(value)).toBe(exact(value));
  fc.assert(
    fc.property(amountSpelling, (text) => {
      expect(normalizePrice(text)).toBe(exact(text));
    }),
  );
  fc.assert(
    fc.property(fc.double({ noNaN: true }), (value) => {
      expect(normalizePrice(value)).toBe(exact(value));
    }),
  );
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
