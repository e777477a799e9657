/**
 * Merges openapi.yaml, the domain fragments under api/ and the standalone
 * JSON Schemas under schemas/ into one OpenAPI document.
 *
 * Fragments refer to each other's components as `#/components/...` and to
 * standalone schemas by relative file path; the merged document must be
 * self-contained, so file refs become component refs here. Run through
 * `npm run bundle -w @restoapi/openapi`.
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const MERGEABLE = ['paths', 'webhooks'] as const;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function listFiles(dir: string, suffix: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

function rel(file: string): string {
  return path.relative(root, file);
}

/** A standalone schema file, as it will sit in components/schemas. */
interface SchemaFile {
  title: string;
  body: JsonObject;
  defs: Record<string, JsonObject>;
}

export interface BundleResult {
  document: JsonObject;
  /** Component names hoisted from schemas/, by file name. */
  schemaFiles: Record<string, string>;
}

/** Builds the merged document in memory; throws on any conflict or dangling file ref. */
export async function bundle(): Promise<BundleResult> {
  const document = YAML.parse(await readFile(path.join(root, 'openapi.yaml'), 'utf8')) as JsonObject;
  const components: Record<string, JsonObject> = {};
  const origin = new Map<string, string>();
  for (const key of MERGEABLE) document[key] = {};

  const schemaFiles = new Map<string, SchemaFile>();
  const schemaDir = path.join(root, 'schemas');
  for (const file of await listFiles(schemaDir, '.schema.json')) {
    const raw = JSON.parse(await readFile(file, 'utf8')) as JsonObject;
    const title = raw.title;
    if (typeof title !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(title)) {
      throw new Error(`${rel(file)}: a standalone schema needs a PascalCase "title" (its component name)`);
    }
    const { $schema: _schema, $defs, $id: _id, ...body } = raw;
    const defs = isObject($defs) ? (Object.fromEntries(Object.entries($defs)) as Record<string, JsonObject>) : {};
    schemaFiles.set(path.basename(file), { title, body, defs });
  }

  // Rewrites a file ref (relative to `fromFile`) or an intra-schema ref into a component ref.
  function rewriteRef(ref: string, fromFile: string): string {
    if (ref.startsWith('#/components/')) return ref;
    const [target = '', pointer = ''] = ref.split('#', 2);
    let schemaName: string;
    if (target === '') {
      // `#/$defs/...` inside a standalone schema file.
      schemaName = path.basename(fromFile);
      if (!schemaFiles.has(schemaName)) throw new Error(`${rel(fromFile)}: unsupported ref ${ref}`);
    } else {
      const resolved = path.resolve(path.dirname(fromFile), target);
      if (path.dirname(resolved) !== schemaDir || !schemaFiles.has(path.basename(resolved))) {
        throw new Error(`${rel(fromFile)}: ref ${ref} must point at a file in schemas/`);
      }
      schemaName = path.basename(resolved);
    }
    const schema = schemaFiles.get(schemaName)!;
    const defMatch = /^\/\$defs\/([^/]+)(\/.*)?$/.exec(pointer);
    if (defMatch) {
      const [, def = '', rest = ''] = defMatch;
      if (!schema.defs[def]) throw new Error(`${rel(fromFile)}: ${ref} names no $def ${def}`);
      return `#/components/schemas/${def}${rest}`;
    }
    return `#/components/schemas/${schema.title}${pointer}`;
  }

  function rewrite(node: Json, fromFile: string): Json {
    if (Array.isArray(node)) return node.map((item) => rewrite(item, fromFile));
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = key === '$ref' && typeof value === 'string' ? rewriteRef(value, fromFile) : rewrite(value, fromFile);
    }
    return out;
  }

  function addComponent(kind: string, name: string, value: Json, from: string): void {
    const bucket = (components[kind] ??= {});
    const id = `${kind}/${name}`;
    if (name in bucket) throw new Error(`${from}: components/${id} is already defined in ${origin.get(id)}`);
    bucket[name] = value;
    origin.set(id, from);
  }

  for (const [fileName, schema] of schemaFiles) {
    const file = path.join(schemaDir, fileName);
    addComponent('schemas', schema.title, rewrite(schema.body, file), rel(file));
    for (const [def, body] of Object.entries(schema.defs)) {
      addComponent('schemas', def, rewrite(body, file), `${rel(file)}#/$defs/${def}`);
    }
  }

  for (const file of await listFiles(path.join(root, 'api'), '.yaml')) {
    let fragment: JsonObject | null;
    try {
      fragment = YAML.parse(await readFile(file, 'utf8')) as JsonObject | null;
    } catch (error) {
      throw new Error(`${rel(file)}: ${(error as Error).message}`);
    }
    if (!fragment) continue;
    for (const key of Object.keys(fragment)) {
      if (key !== 'components' && !(MERGEABLE as readonly string[]).includes(key)) {
        throw new Error(`${rel(file)}: a fragment may only hold paths, webhooks and components, not ${key}`);
      }
    }
    for (const key of MERGEABLE) {
      const section = fragment[key];
      if (section === undefined) continue;
      if (!isObject(section)) throw new Error(`${rel(file)}: ${key} must be a map`);
      const target = document[key] as JsonObject;
      for (const [name, item] of Object.entries(section)) {
        if (name in target)
          throw new Error(`${rel(file)}: ${key} ${name} is already defined in ${origin.get(`${key}/${name}`)}`);
        target[name] = rewrite(item, file);
        origin.set(`${key}/${name}`, rel(file));
      }
    }
    if (fragment.components !== undefined) {
      if (!isObject(fragment.components)) throw new Error(`${rel(file)}: components must be a map`);
      for (const [kind, entries] of Object.entries(fragment.components)) {
        if (!isObject(entries)) throw new Error(`${rel(file)}: components/${kind} must be a map`);
        for (const [name, value] of Object.entries(entries)) addComponent(kind, name, rewrite(value, file), rel(file));
      }
    }
  }

  const sortedComponents: JsonObject = {};
  for (const kind of Object.keys(components).sort()) {
    const entries = components[kind]!;
    sortedComponents[kind] = Object.fromEntries(
      Object.keys(entries)
        .sort()
        .map((name) => [name, entries[name]!]),
    );
  }
  document.components = sortedComponents;
  for (const key of MERGEABLE) {
    if (Object.keys(document[key] as JsonObject).length === 0) delete document[key];
  }
  return {
    document,
    schemaFiles: Object.fromEntries([...schemaFiles].map(([file, schema]) => [file, schema.title])),
  };
}

const HEADER = 'Generated by openapi/scripts/bundle.ts from openapi.yaml, api/ and schemas/. Do not edit.';

async function main(): Promise<void> {
  const { document } = await bundle();
  const out = path.join(root, 'generated');
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'openapi.json'), `${JSON.stringify(document, null, 2)}\n`);
  await writeFile(path.join(out, 'openapi.yaml'), `# ${HEADER}\n${YAML.stringify(document, { lineWidth: 0 })}`);
  const paths = Object.keys((document.paths as JsonObject | undefined) ?? {}).length;
  console.log(`bundled ${paths} paths into ${rel(out)}/openapi.{json,yaml}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
