import { describe, expect, test } from 'vitest';
import { fromMinorUnits, toMinorUnits } from './minor-units.js';

describe('money in minor units', () => {
  test('decimal strings and numbers become integer cents without floating-point error', () => {
    expect(toMinorUnits('9.50')).toBe(950);
    expect(toMinorUnits('17.5')).toBe(1750);
    expect(toMinorUnits('0.05')).toBe(5);
    expect(toMinorUnits('12')).toBe(1200);
    expect(toMinorUnits('-2.50')).toBe(-250);
    expect(toMinorUnits('-0.00')).toBe(0);
    expect(toMinorUnits(19.99)).toBe(1999); // 19.99 * 100 === 1998.9999999999998
    expect(toMinorUnits(0.1)).toBe(10);
    expect(toMinorUnits(1.1)).toBe(110); // 1.1 * 100 === 110.00000000000001
    expect(toMinorUnits('1.500')).toBe(150);
    expect(toMinorUnits('1.005', 3)).toBe(1005);
    expect(toMinorUnits('7', 0)).toBe(7);
  });

  test('sums are exact: 0.1 + 0.2 and the demo order', () => {
    expect(fromMinorUnits(toMinorUnits(0.1) + toMinorUnits(0.2))).toBe('0.30');
    expect(fromMinorUnits(toMinorUnits('17.50') + toMinorUnits('2.50'))).toBe('20.00');
  });

  test('minor units format as the API decimal string', () => {
    expect(fromMinorUnits(950)).toBe('9.50');
    expect(fromMinorUnits(5)).toBe('0.05');
    expect(fromMinorUnits(0)).toBe('0.00');
    expect(fromMinorUnits(-5)).toBe('-0.05');
    expect(fromMinorUnits(123456789)).toBe('1234567.89');
    expect(fromMinorUnits(1005, 3)).toBe('1.005');
    expect(fromMinorUnits(7, 0)).toBe('7');
  });

  test('round trips every cent of a range', () => {
    for (let cents = -1_000; cents <= 100_000; cents += 7) expect(toMinorUnits(fromMinorUnits(cents))).toBe(cents);
  });

  test('refuses what it cannot convert exactly', () => {
    expect(() => toMinorUnits('9.505')).toThrow(RangeError);
    expect(() => toMinorUnits(0.001)).toThrow(RangeError);
    expect(() => toMinorUnits('1e3')).toThrow(RangeError);
    expect(() => toMinorUnits(1e21)).toThrow(RangeError);
    expect(() => toMinorUnits('9,50')).toThrow(RangeError);
    expect(() => toMinorUnits('')).toThrow(RangeError);
    expect(() => toMinorUnits(Number.NaN)).toThrow(RangeError);
    expect(() => toMinorUnits('90071992547409.92')).toThrow(RangeError);
    expect(() => fromMinorUnits(1.5)).toThrow(RangeError);
    expect(() => fromMinorUnits(2 ** 53)).toThrow(RangeError);
  });
});
