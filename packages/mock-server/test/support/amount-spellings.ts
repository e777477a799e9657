import fc from 'fast-check';

/**
 * Any spelling of a decimal amount a client may send: an optional sign or leading zeros, a whole part up to
 * 10^18, no dot, a bare dot or up to three decimals. For property tests of the quick paths that read amounts
 * without big.js, against the exact parser.
 */
export const amountSpelling: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('', '-', '0', '00'),
    fc.bigInt({ min: 0n, max: 10n ** 18n }),
    fc.constantFrom('', '.', '.0', '.00', '.000'),
    fc.nat(999),
  )
  .map(([lead, whole, dot, fraction]) => `${lead}${whole}${dot}${dot.length > 1 ? String(fraction) : ''}`);
