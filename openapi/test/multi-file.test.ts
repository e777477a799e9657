import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect, test } from 'vitest';
import { openapiDocument } from '@restoapi/openapi';

// The source is a standard multi-file document: swagger-parser, a tool we did not write, opens
// the root as it is, and every fragment's refs resolve from the fragment alone (json-schema-ref-parser,
// swagger-parser's resolver, since a fragment is not a whole OpenAPI document).
const root = fileURLToPath(new URL('../', import.meta.url));
const fragments = readdirSync(path.join(root, 'api'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.yaml'))
  .map((file) => path.join(root, 'api', file))
  .sort();

test('swagger-parser opens the root openapi.yaml, checks it and finds every operation of the bundle', async () => {
  // Its JSON Schema check is off: for OpenAPI 3.1 it refuses the `description` of a server variable,
  // which the specification allows (APIDevTools/swagger-cli#83); Redocly and Spectral check the schema.
  const api = (await SwaggerParser.validate(path.join(root, 'openapi.yaml'), {
    validate: { schema: false, spec: true },
  })) as { paths: Record<string, unknown> };
  expect(Object.keys(api.paths)).toEqual(Object.keys(openapiDocument.paths as object));
  expect(Object.keys(api.paths)).toContain('/api-delivery/orders/{secure_id}/delivery');
});

test.each(fragments.map((file) => [path.relative(root, file), file]))(
  'the fragment %s resolves on its own',
  async (_name, file) => {
    const refs = await $RefParser.resolve(file);
    // Every file it reaches is another fragment or a standalone schema of this folder.
    for (const reached of refs.paths()) expect(path.relative(root, reached)).toMatch(/^(api|schemas)\//);
  },
);
