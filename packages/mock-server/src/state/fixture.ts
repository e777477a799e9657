/**
 * Checks fixture files (the mock's state format: `restoapi-mock --seed FILE`,
 * `--state FILE`, `createMock({ state })`) against the published JSON Schema
 * `schemas/fixture.schema.json`. Browser-safe: the schema comes from a
 * generated module, nothing reads files.
 */
import { createAjv, describeAjvError, escapePointer } from '@restoapi/openapi';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { fixtureSchema } from '../generated/fixture-schema.js';
import type { MockStateJson } from './mock-state.js';

/** One problem of a fixture. */
export interface FixtureIssue {
  /** JSON Pointer of the offending value, e.g. `/orders/rows/0/status` (`''` for the whole document). */
  pointer: string;
  /** The JSON Schema keyword that failed (`required`, `enum`, `type`, `additionalProperties`, …). */
  keyword: string;
  /** Sentence naming the pointer, e.g. `/orders/rows/0/status must be one of "pending", …`. */
  message: string;
}

/** Outcome of {@link validateFixture}. */
export type FixtureValidation = { valid: true; value: MockStateJson } | { valid: false; issues: FixtureIssue[] };

let compiled: ValidateFunction | undefined;

/** The fixture schema, compiled once on first use. */
function fixtureValidator(): ValidateFunction {
  if (compiled) return compiled;
  compiled = createAjv().compile(fixtureSchema);
  return compiled;
}

/** ajv's errors as one issue per pointer and keyword, the specific ones before the branch summaries. */
function toIssues(errors: readonly ErrorObject[]): FixtureIssue[] {
  const located = errors.map((error) => {
    let pointer = error.instancePath;
    if (error.keyword === 'required') pointer += `/${escapePointer(String(error.params.missingProperty))}`;
    if (error.keyword === 'additionalProperties')
      pointer += `/${escapePointer(String(error.params.additionalProperty))}`;
    return { error, pointer };
  });
  // A nullable field (`oneOf: [X, null]`) reports "must be null" beside what is wrong inside X; keep the latter.
  const deeper = (pointer: string): boolean => located.some((other) => other.pointer.startsWith(`${pointer}/`));
  const kept = located.filter(
    ({ error, pointer }) =>
      !['oneOf', 'anyOf', 'allOf', 'if', 'not'].includes(error.keyword) &&
      !(error.keyword === 'type' && error.params.type === 'null' && deeper(pointer)),
  );
  const chosen = kept.length > 0 ? kept : located;
  // Type errors of the branches of one value read better together: "must be object or null".
  const typesAt = new Map<string, string[]>();
  for (const { error, pointer } of chosen) {
    if (error.keyword !== 'type') continue;
    const types = typesAt.get(pointer) ?? [];
    for (const type of String(error.params.type).split(',')) if (!types.includes(type)) types.push(type);
    typesAt.set(pointer, types);
  }
  const issues: FixtureIssue[] = [];
  const seen = new Set<string>();
  for (const { error, pointer } of chosen) {
    const key = `${pointer}|${error.keyword}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ pointer, keyword: error.keyword, message: describeAjvError(error, pointer, typesAt.get(pointer)) });
  }
  return issues;
}

/**
 * Checks a parsed fixture (a state export, `GET /__mock/state`) against the
 * fixture schema. Every problem names its JSON Pointer.
 * @example
 * const result = validateFixture(JSON.parse(text));
 * if (!result.valid) console.error(result.issues.map((i) => i.message).join('\n'));
 * else createMock({ state: result.value });
 */
export function validateFixture(json: unknown): FixtureValidation {
  const validate = fixtureValidator();
  if (validate(json)) return { valid: true, value: json as MockStateJson };
  return { valid: false, issues: toIssues(validate.errors ?? []) };
}

/** A fixture that does not match the fixture schema; the message lists the first problems by JSON Pointer. */
export class FixtureError extends Error {
  /** What was read, e.g. `--seed world.json`. */
  readonly source: string;
  readonly issues: FixtureIssue[];

  constructor(source: string, issues: FixtureIssue[]) {
    const shown = issues.slice(0, 10).map((issue) => `  ${issue.message}`);
    if (issues.length > shown.length) shown.push(`  … and ${issues.length - shown.length} more`);
    super(`${source} is not a valid mock fixture (schemas/fixture.schema.json):\n${shown.join('\n')}`);
    this.name = 'FixtureError';
    this.source = source;
    this.issues = issues;
  }
}

/** {@link validateFixture} that throws a {@link FixtureError} naming `source` when the fixture is invalid. */
export function assertFixture(json: unknown, source = 'The fixture'): MockStateJson {
  const result = validateFixture(json);
  if (!result.valid) throw new FixtureError(source, result.issues);
  return result.value;
}
