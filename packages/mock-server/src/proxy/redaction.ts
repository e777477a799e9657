/**
 * `--redact`: client names, phones and addresses replaced by fakes that are stable (the same input gives
 * the same fake, in every run and on every machine), so that an order and its participants still agree
 * after redaction. Faker makes the values, seeded by a hash of the kind and the original value.
 */
import { createHash } from 'node:crypto';
import type { Faker } from '@faker-js/faker';
import type { ClientRedactor } from './recorder.js';

/** A 32-bit seed from a kind and a value. */
function seedOf(kind: string, value: string): number {
  return createHash('sha256').update(`${kind}\0${value}`).digest().readUInt32BE(0);
}

/** The redactor of `--redact`, over a German-locale faker (the service's clients are in Berlin in the demo). */
export async function createRedactor(): Promise<ClientRedactor> {
  // Loaded only when --redact is given: faker's locale data is large.
  const { faker } = (await import('@faker-js/faker/locale/de')) as { faker: Faker };
  const cache = new Map<string, string>();
  const fake = (kind: string, value: string, make: () => string): string => {
    if (value === '') return value;
    const key = `${kind}\0${value}`;
    let out = cache.get(key);
    if (out === undefined) {
      faker.seed(seedOf(kind, value));
      cache.set(key, (out = make()));
    }
    return out;
  };
  return {
    name: (value) => fake('name', value, () => faker.person.fullName()),
    phone: (value) => fake('phone', value, () => faker.phone.number({ style: 'international' })),
    address: (value) => fake('address', value, () => faker.location.streetAddress()),
  };
}
