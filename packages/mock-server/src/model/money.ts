import BigModule from 'big.js';

// A private constructor, so settings changed elsewhere on the shared big.js constructor cannot leak in.
const Big = BigModule();
// Every amount is a whole number of cents, so no operation here ever needs to round; strict mode
// makes big.js refuse raw JS numbers, forcing them through `String()` where they are checked.
Big.strict = true;

type BigValue = BigModule.Big;

/**
 * An amount in its plain spelling (optional minus, no leading zeros, at most two decimals), always an amount:
 * the sign, the whole part and the decimals in groups 1 to 3, for the quick paths that need no big.js number.
 */
export const PLAIN_AMOUNT = /^(-?)(0|[1-9][0-9]{0,14})(?:\.([0-9]{1,2}))?$/;
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/**
 * Whether a plain decimal text (`-?digits[.digits]`) is a whole number of cents: at most two decimals once
 * trailing zeros are dropped (`9.500` yes, `9.505` no). The same answer as `× 100 mod 1 = 0` in exact
 * decimal arithmetic, without a big.js division on every price read.
 */
function wholeCents(text: string): boolean {
  const dot = text.indexOf('.');
  if (dot < 0) return true;
  let end = text.length;
  while (end > dot + 1 && text.charCodeAt(end - 1) === 48 /* 0 */) end -= 1;
  return end - dot - 1 <= 2;
}

/**
 * An exact amount of money in whole cents (two decimals), backed by big.js. Immutable. Serialises to
 * JSON as the decimal string (`"9.50"`); use {@link Money.toNumber} for fields the API sends as numbers.
 */
export class Money {
  /** Zero. */
  static readonly ZERO = new Money(new Big('0'));

  readonly #value: BigValue;

  private constructor(value: BigValue) {
    this.#value = value;
  }

  /**
   * Reads an amount from a JSON number (`9.5`) or a decimal string (`"9.50"`, `"-2"`, `"0.5"`).
   * `undefined` when it is not a finite decimal or not a whole number of cents (`"9.505"`).
   */
  static parse(value: number | string): Money | undefined {
    let text: string;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return undefined;
      // String() gives the shortest text that round-trips, i.e. the literal that was in the JSON.
      text = String(value);
      if (text.includes('e')) text = value.toFixed(20);
    } else if (typeof value === 'string' && DECIMAL.test(value)) {
      text = value;
    } else {
      return undefined;
    }
    const amount = new Big(text);
    const cents = DECIMAL.test(text) ? wholeCents(text) : amount.times('100').mod('1').eq('0');
    return cents ? new Money(amount) : undefined;
  }

  /**
   * Whether {@link Money.parse} reads the value, without building the amount: a configurator checks every item
   * price this way, and the common spellings (`4`, `"4.00"`, `-1.5`) need no big.js number (measured: about
   * 0.2 µs an item of every created dish); any other spelling is read by the exact parser.
   */
  static isAmount(value: number | string): boolean {
    if (
      typeof value === 'number'
        ? PLAIN_AMOUNT.test(String(value))
        : typeof value === 'string' && PLAIN_AMOUNT.test(value)
    )
      return true;
    return Money.parse(value) !== undefined;
  }

  /** Like {@link Money.parse} but throws a `RangeError` for a value that is not an amount. */
  static of(value: number | string | Money): Money {
    if (value instanceof Money) return value;
    const amount = Money.parse(value);
    if (!amount) throw new RangeError(`not a money amount with at most two decimals: ${JSON.stringify(value)}`);
    return amount;
  }

  /** Amount from integer minor units (cents): `950` → 9.50. Throws a `RangeError` for a non-integer. */
  static fromMinorUnits(units: number): Money {
    if (!Number.isSafeInteger(units)) throw new RangeError(`minor units must be a safe integer, got ${units}`);
    return new Money(new Big(String(units)).div('100'));
  }

  /** Sum of any number of amounts (zero for none). */
  static sum(amounts: Iterable<Money>): Money {
    let total = Money.ZERO;
    for (const amount of amounts) total = total.plus(amount);
    return total;
  }

  /** This plus `other`. */
  plus(other: Money): Money {
    return new Money(this.#value.plus(other.#value));
  }

  /** This minus `other`. */
  minus(other: Money): Money {
    return new Money(this.#value.minus(other.#value));
  }

  /** This times an integer quantity, e.g. a line of 3 × 3.30 = 9.90. Throws a `RangeError` for a fraction. */
  times(quantity: number): Money {
    if (!Number.isSafeInteger(quantity)) throw new RangeError(`quantity must be an integer, got ${quantity}`);
    return new Money(this.#value.times(String(quantity)));
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`. */
  compare(other: Money): -1 | 0 | 1 {
    return this.#value.cmp(other.#value) as -1 | 0 | 1;
  }

  /** Whether both amounts are equal. */
  equals(other: Money): boolean {
    return this.#value.eq(other.#value);
  }

  /** Whether this is below `other`. */
  lessThan(other: Money): boolean {
    return this.#value.lt(other.#value);
  }

  /** Whether this is at or above `other`. */
  atLeast(other: Money): boolean {
    return this.#value.gte(other.#value);
  }

  /** Whether this is below zero. */
  isNegative(): boolean {
    return this.#value.lt('0');
  }

  /** Whether this is zero. */
  isZero(): boolean {
    return this.#value.eq('0');
  }

  /** Integer minor units (cents): 9.50 → 950. Throws a `RangeError` beyond `Number.MAX_SAFE_INTEGER`. */
  toMinorUnits(): number {
    const units = Number(this.#value.times('100').toFixed(0));
    if (!Number.isSafeInteger(units)) throw new RangeError(`amount ${this.toString()} is too large for minor units`);
    return units;
  }

  /** The decimal string with exactly two decimals: `"9.50"`, `"-0.30"`. */
  toString(): string {
    return this.#value.toFixed(2);
  }

  /** The amount as a JS number (`9.5`), for fields the API returns as JSON numbers. */
  toNumber(): number {
    return Number(this.toString());
  }

  /** JSON form: the decimal string, as `DecimalString` fields expect. */
  toJSON(): string {
    return this.toString();
  }
}

/**
 * Reads a stored amount (number or decimal string) as money. Stored JSON numbers may carry float noise
 * (24.400000000000002) from older writers; that is rounded to cents instead of failing the request.
 */
export function storedMoney(value: number | string): Money {
  return Money.parse(value) ?? Money.fromMinorUnits(Math.round(Number(value) * 100));
}

// Bulk paths (a 10,000-order import does a dozen sums per order) use integer cents rather than Money
// (big.js): exact for two decimals and cheap.

/** Lenient cents of an amount (number or decimal text): more than two decimals are rounded; 0 for what is not a number. */
export function toCents(value: number | string): number {
  const amount = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(amount) ? Math.round(amount * 100) : 0;
}

/** Cents as the API's decimal string with two decimals: 1750 → "17.50". */
export function centsText(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
