/**
 * The TypeScript types of the three APIs, by openapi-typescript: `main.ts` (the service API without the
 * carrier operations and webhooks), `carrier.ts` (the carrier operations, their paths relative to the
 * carrier base `{base_url}/api-delivery`, and the callbacks) and `control.ts` (the mock's control API).
 * Splitting keeps the carrier operations off main-API clients and the main `/orders…` paths off carrier ones.
 */
import openapiTS, { astToString } from 'openapi-typescript';
import { CARRIER_PATH_PREFIX, listOperations } from '../src/operations.js';

type Doc = Record<string, unknown>;

/** The operations of one API of the bundled document, as a document of their own. */
function subset(document: Doc, api: 'main' | 'carrier'): Doc {
  const keep = new Set(
    listOperations(document)
      .filter((op) => op.kind === 'paths' && op.api === api)
      .map((op) => op.path),
  );
  const paths = Object.fromEntries(
    Object.entries(document.paths as Doc)
      .filter(([p]) => keep.has(p))
      .map(([p, item]) => [api === 'carrier' ? p.slice(CARRIER_PATH_PREFIX.length) : p, item]),
  );
  const doc: Doc = { ...document, paths };
  if (api === 'main') delete doc.webhooks;
  return doc;
}

async function typesOf(document: Doc, control = false): Promise<string> {
  // openapi-typescript may touch the document it is given: it gets a copy.
  const ast = await openapiTS(structuredClone(document) as never, {
    rootTypes: true,
    rootTypesNoSchemaPrefix: false,
    alphabetize: false,
    // A default makes a field optional for the sender, not required (the control API's bodies rely on it).
    ...(control ? { defaultNonNullable: false } : {}),
  });
  return astToString(ast);
}

/** The generated type modules by file name (`main.ts`, `carrier.ts`, `control.ts`), without a header. */
export async function apiTypes(document: Doc, controlDocument: Doc): Promise<Record<string, string>> {
  return {
    'main.ts': await typesOf(subset(document, 'main')),
    'carrier.ts': await typesOf(subset(document, 'carrier')),
    'control.ts': await typesOf(controlDocument, true),
  };
}
