import type { FieldProblem } from '../engine/http-error.js';
import { Money, PLAIN_AMOUNT } from '../model/money.js';
import { configuratorErrors, type ConfiguratorGroup } from '../model/pricing.js';

/**
 * A dish price as stored and returned: a decimal string with exactly two
 * decimals (`9.5` → `"9.50"`). `undefined` for a negative amount or one with
 * more than two decimals (the schema cannot check that for JSON numbers).
 */
export function normalizePrice(value: number | string): string | undefined {
  // The common spellings (`12.9`, `"12.90"`, `0`) are written with two decimals as they are, without a big.js
  // number (measured: about 2 µs of every created dish); every other one (`"9.500"`, `"09.5"`, `1e21`, a
  // negative) is read by the exact parser.
  const found = PLAIN_AMOUNT.exec(typeof value === 'number' ? String(value) : value);
  // A plain amount without a sign: its two-decimal text needs no arithmetic.
  const plain = found && found[1] === '' ? found : undefined;
  // Already written with two decimals: the sent string itself, which answers are serialized from without the
  // flattening a joined string needs first (measured under load: `JSON.stringify` of a created dish).
  if (plain && typeof value === 'string' && plain[3]?.length === 2) return value;
  if (plain) return `${plain[2]!}.${(plain[3] ?? '').padEnd(2, '0')}`;
  const amount = Money.parse(value);
  return amount && !amount.isNegative() ? amount.toString() : undefined;
}

/**
 * A weight in grams as stored and returned: a decimal string without trailing
 * zeros (`450`, `450.0` and `"450.00"` → `"450"`, `12.50` → `"12.5"`), `null`
 * for an unknown weight, `undefined` when invalid (negative or more than two decimals).
 */
export function normalizeWeight(value: number | string | null | undefined): string | null | undefined {
  if (value === null || value === undefined) return null;
  // Weights have the same precision rule as prices, so the exact money parser checks them too.
  const amount = Money.parse(value);
  if (!amount || amount.isNegative()) return undefined;
  return amount.toString().replace(/\.?0+$/, '');
}

/**
 * Checks a dish configurator (`options`, or `modifiers` of the menu import) by
 * the rules of `ConfiguratorGroup`: 422 `invalid_configuration` for broken
 * rules, `invalid_value` for prices with more than two decimals. Pointers are
 * absolute (`base` is where the configurator sits, e.g. `/draft_dish/options`).
 */
export function configuratorProblems(
  options: readonly ConfiguratorGroup[] | null | undefined,
  base: string,
): FieldProblem[] {
  if (!options) return [];
  const errors = configuratorErrors(options);
  // A valid configurator (every stored dish's) needs no filtering and mapping.
  if (errors.length === 0) return [];
  return (
    errors
      // min and max are ignored for single-choice groups (decided: exactly one option is chosen, they are kept as sent).
      .filter((problem) => {
        const match = /^\/(\d+)\/(min|max)$/.exec(problem.pointer);
        return !(match && options[Number(match[1])]?.multiple === false);
      })
      .map((problem) => ({
        pointer: `${base}${problem.pointer}`,
        code: problem.pointer.endsWith('/price') ? 'invalid_value' : 'invalid_configuration',
        detail: problem.detail,
      }))
  );
}
