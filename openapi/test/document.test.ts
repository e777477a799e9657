import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { createApiDescription, getAtPointer, listDecisions, listOperations, openapiDocument } from '@restoapi/openapi';

const api = createApiDescription();

test('the bundled document is valid OpenAPI 3.1 with no lint problems', async () => {
  // The Redocly CLI itself, with the committed ruleset: the same verdict as `npm run lint:api`.
  const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
  const document = fileURLToPath(new URL('../generated/openapi.yaml', import.meta.url));
  const config = fileURLToPath(new URL('../redocly.yaml', import.meta.url));
  const run = await promisify(execFile)(
    process.execPath,
    [cli, 'lint', document, '--config', config, '--format', 'json'],
    {
      maxBuffer: 32 * 1024 * 1024,
    },
  ).catch((error: { stdout: string }) => error);
  const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
    totals: { errors: number; warnings: number };
    problems: { ruleId: string; message: string }[];
  };
  expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  expect(openapiDocument.openapi).toBe('3.1.0');
}, 30_000);

// Collects every example in the document with the schema it must satisfy.
function collectExamples(): { where: string; schemaPointer: string; value: unknown }[] {
  const found: { where: string; schemaPointer: string; value: unknown }[] = [];
  const walk = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${pointer}/${i}`));
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    // Media type objects and parameter objects: `schema` plus a named `examples` map or one `example`.
    if ('schema' in record && (record.examples || 'example' in record)) {
      const schemaPointer = `${pointer}/schema`;
      if ('example' in record) found.push({ where: `${pointer}/example`, schemaPointer, value: record.example });
      for (const [name, example] of Object.entries((record.examples ?? {}) as Record<string, unknown>)) {
        const resolved = (example as { $ref?: string }).$ref
          ? getAtPointer(openapiDocument, (example as { $ref: string }).$ref.slice(1))
          : example;
        const value = (resolved as { value?: unknown }).value;
        if (value !== undefined) found.push({ where: `${pointer}/examples/${name}`, schemaPointer, value });
      }
    }
    // Schema objects: JSON Schema `examples` array.
    if (
      Array.isArray(record.examples) &&
      ('type' in record || '$ref' in record || 'oneOf' in record || 'anyOf' in record)
    ) {
      record.examples.forEach((value, i) =>
        found.push({ where: `${pointer}/examples/${i}`, schemaPointer: pointer, value }),
      );
    }
    for (const [key, value] of Object.entries(record)) {
      if (key === 'examples' || key === 'example') continue;
      walk(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
  };
  walk(openapiDocument, '');
  return found;
}

test('every example validates against its own schema', () => {
  const examples = collectExamples();
  expect(examples.length).toBeGreaterThan(50);
  const failures = examples.flatMap(({ where, schemaPointer, value }) => {
    const result = api.validateAt(schemaPointer, value);
    return result.valid ? [] : [`${where}: ${result.issues.map((i) => i.message).join('; ')}`];
  });
  expect(failures).toEqual([]);
});

test('every operation has an operationId, a tag, x-spec-ref, a success example and documented errors', () => {
  const operations = listOperations(openapiDocument);
  const problems: string[] = [];
  for (const op of operations) {
    const where = `${op.method.toUpperCase()} ${op.path}`;
    if (!/^[a-z][A-Za-z]+$/.test(op.operationId)) problems.push(`${where}: operationId ${op.operationId}`);
    if (op.tags.length !== 1) problems.push(`${where}: needs exactly one tag`);
    if (!op.specRef) problems.push(`${where}: no x-spec-ref`);
    const success = op.responses.filter((r) => r.status.startsWith('2'));
    if (success.length === 0) problems.push(`${where}: no 2xx response`);
    if (op.kind === 'paths') {
      const statuses = op.responses.map((r) => r.status);
      if (!statuses.some((s) => s.startsWith('4'))) problems.push(`${where}: no 4xx response`);
      if (op.authenticated && !statuses.includes('401')) problems.push(`${where}: authenticated but no 401`);
      if (op.path.includes('{') && !statuses.includes('404')) problems.push(`${where}: by-id but no 404`);
      // An id that is not an integer is an invalid path parameter: 400 (AUTHORING.md, Errors).
      const typedParam = op.parameters.some((p) => p.in === 'path' && p.name === 'id');
      if (typedParam && !statuses.includes('400')) problems.push(`${where}: integer path id but no 400`);
    }
  }
  expect(problems).toEqual([]);
});

test('decided elements are marked and listed in DECISIONS.md', async () => {
  const decisions = listDecisions(openapiDocument);
  expect(decisions.length).toBeGreaterThan(40);
  const markdown = await readFile(new URL('../DECISIONS.md', import.meta.url), 'utf8');
  for (const decision of decisions) expect(markdown).toContain(`\`${decision.pointer || '/'}\``);
  // The spec's "not shown" topics each have a decision somewhere.
  const text = decisions
    .map((d) => d.why)
    .join('\n')
    .toLowerCase();
  for (const topic of ['per_page', 'sort_by', 'send_sms', 'lifetime', 'retry', 'error body', 'day']) {
    expect(text, topic).toContain(topic);
  }
});

test('one server; the carrier API sits at its real paths under /api-delivery and nowhere else', () => {
  expect((openapiDocument.servers as { url: string }[]).map((s) => s.url)).toEqual(['{base_url}']);
  const operations = listOperations(openapiDocument);
  const carrier = operations.filter((op) => op.tags.includes('Carrier API'));
  expect(carrier.map((op) => op.operationId).sort()).toEqual(['getCarrierOrder', 'updateCarrierDelivery']);
  expect(carrier.map((op) => op.routes)).toEqual([
    ['/api-delivery/orders/{secure_id}'],
    ['/api-delivery/orders/{secure_id}/delivery'],
  ]);
  for (const op of operations) {
    expect(op.serverPath, op.operationId).toBe('');
    expect(op.api, op.operationId).toBe(op.tags.includes('Carrier API') ? 'carrier' : 'main');
  }
  // No path item or operation of the document carries its own servers: generic tools ignore them.
  expect(JSON.stringify(openapiDocument.paths)).not.toContain('"servers"');
  expect(
    operations
      .filter((op) => op.kind === 'webhooks')
      .map((op) => op.operationId)
      .sort(),
  ).toEqual(['orderCreatedCallback', 'orderStatusChangedCallback']);
});

test('property schemas written out in update bodies and callbacks stay equal to their resource', () => {
  // The fragments write these out instead of `$ref`ing into another component's properties (which a
  // bundler would hoist under made-up names); only `description` and `x-decision` may differ.
  const schemas = (openapiDocument.components as { schemas: Record<string, { properties: Record<string, object> }> })
    .schemas;
  const bare = (schema: object | undefined): string => {
    // A marker and the aspects it narrows to (x-decided) belong to the copy that is marked.
    const { description: _d, 'x-decision': _x, 'x-decided': _a, ...rest } = (schema ?? {}) as Record<string, unknown>;
    return JSON.stringify(rest);
  };
  const pairs: [string, object | undefined, object | undefined][] = [];
  const order = getAtPointer(openapiDocument, '/components/schemas/OrderUpdate/properties/order/properties') as Record<
    string,
    object
  >;
  for (const [name, schema] of Object.entries(order))
    if (name !== 'status') pairs.push([`OrderUpdate ${name}`, schema, schemas.Order!.properties[name]]);
  for (const name of ['day', 'open_at', 'close_at', 'date'])
    pairs.push([
      `TimetableInput ${name}`,
      schemas.TimetableInput!.properties[name],
      schemas.Timetable!.properties[name],
    ]);
  for (const zone of ['DeliveryZoneCreate', 'DeliveryZoneUpdate'])
    pairs.push([`${zone} area`, schemas[zone]!.properties.area, schemas.DeliveryZone!.properties.area]);
  for (const [hook, event] of [
    ['order_created', 'OrderCreatedEvent'],
    ['order_status_changed', 'OrderStatusChangedEvent'],
  ] as const) {
    const parameters = getAtPointer(openapiDocument, `/webhooks/${hook}/post/parameters`) as {
      name?: string;
      schema?: object;
    }[];
    for (const { name, schema } of parameters.filter((p) => p.name))
      pairs.push([`${hook} ${name}`, schema, schemas[event]!.properties[name!]]);
  }
  expect(pairs.length).toBeGreaterThan(40);
  for (const [where, copy, original] of pairs) expect(bare(copy), where).toBe(bare(original));
});
