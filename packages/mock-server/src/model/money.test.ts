import { expect, test } from 'vitest';
import fc from 'fast-check';
import BigModule from 'big.js';
import { Money } from './money.js';
import { amountSpelling } from '../../test/support/amount-spellings.js';

test('amounts print with exactly two decimals', () => {
  expect(Money.of('9.5').toString()).toBe('9.50');
  expect(Money.of(9.5).toString()).toBe('9.50');
  expect(Money.of('12').toString()).toBe('12.00');
  expect(Money.of(0).toString()).toBe('0.00');
  expect(Money.of('-2.5').toString()).toBe('-2.50');
  expect(Money.of('9.500').toString()).toBe('9.50');
});

test('0.1 + 0.2 is exactly 0.30, unlike floating point', () => {
  expect(0.1 + 0.2).not.toBe(0.3);
  expect(Money.of(0.1).plus(Money.of(0.2)).toString()).toBe('0.30');
  expect(Money.of(0.1).plus(Money.of(0.2)).equals(Money.of('0.3'))).toBe(true);
});

test('3 × 3.30 is 9.90 and 100 × 1.10 is 110.00', () => {
  expect(3 * 3.3).not.toBe(9.9);
  expect(Money.of('3.30').times(3).toString()).toBe('9.90');
  expect(Money.of(1.1).times(100).toString()).toBe('110.00');
});

test('summing many small amounts stays exact', () => {
  const cents = Array.from({ length: 1000 }, () => Money.of('0.01'));
  expect(Money.sum(cents).toString()).toBe('10.00');
  expect(Money.sum([]).toString()).toBe('0.00');
});

test('subtraction gives change: 50.00 handed over for 20.00', () => {
  expect(Money.of(50).minus(Money.of('20.00')).toString()).toBe('30.00');
  expect(Money.of('1.00').minus(Money.of('1.01')).toString()).toBe('-0.01');
});

test('minor units round-trip through integer cents', () => {
  expect(Money.of('9.50').toMinorUnits()).toBe(950);
  expect(Money.of(0.29).toMinorUnits()).toBe(29); // 0.29 * 100 is 28.999999999999996 in floats
  expect(Money.fromMinorUnits(1999).toString()).toBe('19.99');
  expect(Money.fromMinorUnits(-5).toString()).toBe('-0.05');
  expect(Money.fromMinorUnits(Money.of('1234567.89').toMinorUnits()).toString()).toBe('1234567.89');
});

test('minor units refuse fractions and unsafe sizes', () => {
  expect(() => Money.fromMinorUnits(9.5)).toThrow(RangeError);
  expect(() => Money.of('100000000000000000000').toMinorUnits()).toThrow(/too large/);
});

test('comparisons', () => {
  const ten = Money.of(10);
  expect(ten.compare(Money.of('9.99'))).toBe(1);
  expect(ten.compare(Money.of('10.00'))).toBe(0);
  expect(ten.compare(Money.of('10.01'))).toBe(-1);
  expect(Money.of('11.99').lessThan(Money.of('12.00'))).toBe(true);
  expect(Money.of('25.00').atLeast(Money.of(25))).toBe(true);
  expect(Money.of('-0.01').isNegative()).toBe(true);
  expect(Money.of('0.00').isZero()).toBe(true);
});

test('parse refuses what is not an amount of whole cents', () => {
  for (const bad of ['9.505', '', ' 9.50', '9,50', '+1', '.5', '1e3', 'abc', '0x10', 'NaN']) {
    expect(Money.parse(bad), bad).toBeUndefined();
  }
  expect(Money.parse(Number.NaN)).toBeUndefined();
  expect(Money.parse(Number.POSITIVE_INFINITY)).toBeUndefined();
  expect(Money.parse(0.001)).toBeUndefined();
  expect(Money.parse(1e-7)).toBeUndefined();
  expect(Money.parse(null as unknown as string)).toBeUndefined();
});

test('of throws a RangeError naming the bad value', () => {
  expect(() => Money.of('9.505')).toThrow('not a money amount with at most two decimals: "9.505"');
  expect(() => Money.of(Number.NaN)).toThrow(RangeError);
});

test('times refuses fractional quantities', () => {
  expect(() => Money.of(1).times(1.5)).toThrow('quantity must be an integer, got 1.5');
});

test('JSON gets the decimal string, toNumber the plain number', () => {
  expect(JSON.stringify({ total: Money.of('17.5') })).toBe('{"total":"17.50"}');
  expect(Money.of('20.00').toNumber()).toBe(20);
  expect(Money.of('0.30').toNumber()).toBe(0.3);
});

test('of passes an existing Money through', () => {
  const amount = Money.of('1.00');
  expect(Money.of(amount)).toBe(amount);
});

test('the whole-cents rule is exact decimal arithmetic (× 100 mod 1 = 0) for any text or number', () => {
  const Big = BigModule();
  const DECIMAL = /^-?\d+(?:\.\d+)?$/;
  // The rule as first written, all in big.js.
  const byArithmetic = (value: number | string): string | undefined => {
    let text: string;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return undefined;
      text = String(value);
      if (text.includes('e')) text = value.toFixed(20);
    } else if (DECIMAL.test(value)) text = value;
    else return undefined;
    const amount = new Big(text);
    return amount.times('100').mod('1').eq('0') ? amount.toFixed(2) : undefined;
  };
  const samples: (number | string)[] = [
    '0',
    '-0',
    '9.5',
    '9.50',
    '9.500',
    '9.505',
    '9.5050',
    '0.001',
    '0.010',
    '-2.345',
    '12.',
    '.5',
    '1e3',
    '00.10',
    '5.0000',
  ];
  samples.push(
    '1.00000000000000000001',
    '123456789012345678901234.99',
    1e-7,
    1e21,
    1.5e21,
    2e-3,
    123e-2,
    -1e-9,
    0.1 + 0.2,
    24.400000000000002,
  );
  for (let i = 0; i < 3000; i++) {
    const n = ((i * 7919) % 200_003) / [1, 10, 100, 1000, 7][i % 5]! - 1000;
    samples.push(n, String(n), n.toFixed(i % 5));
  }
  for (const value of samples) expect(Money.parse(value)?.toString(), String(value)).toBe(byArithmetic(value));
});

test('isAmount answers as parse does, for any spelling and any double', () => {
  for (const value of [
    '4',
    '4.00',
    '-1.5',
    '0',
    '-0',
    '00',
    '04',
    '4.',
    '.5',
    '4.005',
    '1e3',
    '0x1',
    ' 1',
    '',
    'NaN',
    1e21,
    5e-7,
    -0,
    NaN,
    Infinity,
  ])
    expect(Money.isAmount(value), String(value)).toBe(Money.parse(value) !== undefined);
  for (const hostile of [null, undefined, ['4'], { toString: () => '4' }, true])
    expect(Money.isAmount(hostile as never)).toBe(Money.parse(hostile as never) !== undefined);
  fc.assert(
    fc.property(amountSpelling, (text) => {
      expect(Money.isAmount(text)).toBe(Money.parse(text) !== undefined);
    }),
  );
  fc.assert(
    fc.property(fc.double(), (value) => {
      expect(Money.isAmount(value)).toBe(Money.parse(value) !== undefined);
    }),
  );
});
