import type { ContractTest } from '../runner/context.js';

/** Declares a test (identity; gives type checking and one place to hook into). */
export function defineTest(test: ContractTest): ContractTest {
  if (test.profile === 'full' && !(test.decisions && test.decisions.length > 0)) {
    throw new Error(`full-profile test ${test.id} must name the x-decision pointers it checks`);
  }
  const stray = test.fullOnlyClauses?.filter((clause) => !test.clauses.includes(clause)) ?? [];
  if (stray.length > 0) throw new Error(`test ${test.id}: fullOnlyClauses not among its clauses: ${stray.join(', ')}`);
  return test;
}

/** JSON Pointer of an operation (or something inside it) in the bundled document. */
export function opPointer(path: string, method: string, rest = ''): string {
  return `/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}${rest}`;
}

/** JSON Pointer of a component. */
export function component(kind: 'schemas' | 'responses' | 'parameters' | 'headers', name: string): string {
  return `/components/${kind}/${name}`;
}

/** Every row of a resource table as clause ids (`Resources > Order: …`). */
export function resourceRows(resource: string, fields: string[]): string[] {
  return fields.map((field) => `Resources > ${resource}: ${field}`);
}
