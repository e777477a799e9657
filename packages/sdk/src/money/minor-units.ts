/**
 * Money helpers. Prices travel as decimal strings (`"9.50"`) or JSON numbers (`17.5`); adding them as
 * floating-point numbers drifts (0.1 + 0.2). Convert to integer minor units (cents), compute, convert back.
 * Conversions work on the decimal digits as text, never through floating-point arithmetic.
 */

const DECIMAL = /^([+-])?(\d+)(?:\.(\d*))?$/;

/**
 * Converts a decimal amount to integer minor units: `'9.50'` → `950`, `17.5` → `1750`.
 * Throws `RangeError` for more decimals than the currency has, for exponent notation, or beyond `Number.MAX_SAFE_INTEGER`.
 * @example
 * toMinorUnits('9.50') + toMinorUnits('2.50') // 1200
 */
export function toMinorUnits(amount: string | number, decimals = 2): number {
  const text = typeof amount === 'number' ? numberText(amount) : amount.trim();
  const match = DECIMAL.exec(text);
  if (!match) throw new RangeError(`Not a decimal amount: ${JSON.stringify(amount)}`);
  const [, sign, whole = '', fraction = ''] = match;
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > decimals) throw new RangeError(`${text} has more than ${decimals} decimals`);
  const digits = (whole + fraction.padEnd(decimals, '0').slice(0, decimals)).replace(/^0+(?=\d)/, '');
  const value = Number(digits);
  if (!Number.isSafeInteger(value)) throw new RangeError(`${text} is too large to count in minor units safely`);
  return sign === '-' && value !== 0 ? -value : value;
}

function numberText(amount: number): string {
  if (!Number.isFinite(amount)) throw new RangeError(`Not a finite amount: ${amount}`);
  // The shortest text that reads back as the same number: 19.99 → "19.99", never "19.989999…".
  const text = String(amount);
  if (/e/i.test(text)) throw new RangeError(`${text} cannot be read as money (exponent notation)`);
  return text;
}

/**
 * Formats integer minor units as the API's decimal string: `950` → `'9.50'`, `-5` → `'-0.05'`.
 * @example
 * fromMinorUnits(toMinorUnits('17.50') + toMinorUnits('2.50')) // '20.00'
 */
export function fromMinorUnits(minor: number, decimals = 2): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`${minor} is not a safe integer number of minor units`);
  const digits = String(Math.abs(minor)).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals);
  return `${minor < 0 ? '-' : ''}${whole}${decimals > 0 ? `.${fraction}` : ''}`;
}
