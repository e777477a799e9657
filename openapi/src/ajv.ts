import { Ajv2020, type ErrorObject, type Options } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats ships CJS with a default export; under NodeNext the namespace object is what we get.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

/**
 * A JSON Schema 2020-12 ajv instance set up as this toolkit's validators are: lenient about unknown
 * keywords, every error reported, formats checked (ajv-formats plus the OpenAPI `int64` and `int32`).
 * `options` are merged over those defaults. Browser-safe: no Node built-ins.
 * @example
 * const validate = createAjv().compile(schema);
 */
export function createAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, ...options });
  addFormats(ajv);
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 31 });
  return ajv;
}

/**
 * One ajv error as a sentence naming the field, e.g. `/draft_dish/name is required`. `types` lists
 * the accepted types of a `type` error when several branches were merged ("object or null").
 */
export function describeAjvError(error: ErrorObject, where: string, types?: readonly string[]): string {
  const subject = where || '(root)';
  switch (error.keyword) {
    case 'required':
      return `${subject} is required`;
    case 'additionalProperties':
      return `${subject} is not an allowed field`;
    case 'enum':
      return `${subject} must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${subject} must be ${JSON.stringify(error.params.allowedValue)}`;
    case 'type':
      return `${subject} must be ${(types?.length ? types : [String(error.params.type)]).join(' or ')}`;
    default:
      return `${subject} ${error.message ?? 'is invalid'}`;
  }
}
