/**
 * Derives the clause catalogue of the written specification: every numbered
 * rule and every table row becomes a clause with a stable id, such as
 * `Limits 1`, `Data format rules 8`, `Endpoints > Orders: PUT /orders/:id/status`,
 * `States and transitions: row 5` or `Resources > DraftDish: price`.
 *
 * Usage: `RESTOAPI_SPEC=<path of the spec> npm run generate` (or `-w @restoapi/contract-tests`).
 * The spec is not part of this repository, so without `RESTOAPI_SPEC` the committed catalogue is kept
 * and the script says that the check against the spec was skipped.
 * `--check` compares instead of writing and exits 1 when the file is stale.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ExtractedClause {
  id: string;
  /** Heading trail, e.g. `Endpoints > Orders`. */
  section: string;
  kind: 'rule' | 'row';
  text: string;
  /** The clause only says that something is "not shown": nothing to test. */
  notShown: boolean;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const outPath = path.resolve(here, '..', 'src', 'generated', 'clauses.ts');

/** Long H2 titles get the short name used in clause ids. */
const SHORT_H2: Record<string, string> = { 'Resources and their fields': 'Resources' };

function cleanTitle(title: string): string {
  return title
    .replace(/\s*\([^)]*\)\s*$/, '')
    .replace(/`/g, '')
    .trim();
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());
}

const plain = (text: string): string => text.replace(/`/g, '').trim();

/** Parses the spec's markdown into clauses, in document order. */
export function extractClauses(markdown: string): ExtractedClause[] {
  const lines = markdown.split(/\r?\n/);
  const clauses: ExtractedClause[] = [];
  let h2 = '';
  let h3 = '';
  let label = '';
  /** A numbered rule ending with ':' owns the table that follows it. */
  let owningRule = '';
  const sectionOf = (): string => [h2, h3, label].filter(Boolean).join(' > ');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    const trimmed = line.trim();
    if (trimmed === '') continue;
    if (trimmed.startsWith('# ')) continue;
    if (trimmed.startsWith('## ')) {
      const title = cleanTitle(trimmed.slice(3));
      h2 = SHORT_H2[title] ?? title;
      h3 = '';
      label = '';
      owningRule = '';
      continue;
    }
    if (trimmed.startsWith('### ')) {
      h3 = cleanTitle(trimmed.slice(4));
      label = '';
      owningRule = '';
      continue;
    }
    const numbered = /^(\d+)\.\s+(.*)$/.exec(trimmed);
    if (numbered) {
      const name = label || h3 || h2;
      const id = `${name} ${numbered[1]}`;
      const text = numbered[2]!.trim();
      clauses.push({
        id,
        section: [h2, h3].filter(Boolean).join(' > '),
        kind: 'rule',
        text,
        notShown: /^[^.]*: not shown\.?$/.test(text),
      });
      owningRule = numbered[2]!.trim().endsWith(':') ? id : '';
      continue;
    }
    if (trimmed.startsWith('|')) {
      const header = cells(trimmed);
      const rows: string[][] = [];
      i += 1; // separator
      while (i + 1 < lines.length && lines[i + 1]!.trim().startsWith('|')) {
        i += 1;
        rows.push(cells(lines[i]!));
      }
      const prefix = owningRule || sectionOf();
      const methodAt = header.findIndex((h) => h.toLowerCase() === 'method');
      const pathAt = header.findIndex((h) => h.toLowerCase() === 'path');
      const firsts = rows.map((row) => plain(row[0] ?? ''));
      const unique = new Set(firsts).size === firsts.length;
      rows.forEach((row, index) => {
        let key: string;
        if (methodAt >= 0 && pathAt >= 0) key = `${plain(row[methodAt] ?? '')} ${plain(row[pathAt] ?? '')}`;
        else if (unique) key = firsts[index]!;
        else key = `row ${index + 1}`;
        clauses.push({
          id: `${prefix}: ${key}`,
          section: prefix,
          kind: 'row',
          text: header.map((h, c) => `${h}: ${row[c] ?? ''}`).join('; '),
          notShown: false,
        });
      });
      owningRule = '';
      continue;
    }
    if (/^[-*]\s/.test(trimmed)) continue;
    // A paragraph: a short one ending with ':' names what follows (a table or a list of rules).
    owningRule = '';
    // Names ("Menu import body:", "Timetable entry:") label what follows; sentences and
    // descriptions ("An array of groups (…):") do not.
    if (trimmed.endsWith(':')) {
      const head = trimmed.split(':')[0]!;
      label = head.length <= 60 && !/^(A|An)\s/.test(head) ? cleanTitle(plain(head)) : '';
    } else label = '';
  }
  const seen = new Set<string>();
  for (const clause of clauses) {
    if (seen.has(clause.id)) throw new Error(`duplicate clause id ${clause.id}`);
    seen.add(clause.id);
  }
  return clauses;
}

/** The TypeScript module holding the catalogue. */
export function renderClauses(markdown: string): string {
  const clauses = extractClauses(markdown);
  const hash = createHash('sha256').update(markdown).digest('hex').slice(0, 16);
  return `/* eslint-disable */
// Generated by contract-tests/scripts/extract-clauses.ts from shared/seeds/000_1d0cb84b409498a3.txt. Do not edit; run \`npm run generate\`.
import type { Clause } from '../clause-types.js';

/** SHA-256 (first 16 hex digits) of the specification text the catalogue was derived from. */
export const SPEC_HASH = ${JSON.stringify(hash)};

/** Every clause of the specification: each numbered rule and each table row, in document order. */
export const CLAUSES: readonly Clause[] = ${JSON.stringify(clauses, null, 2)};
`;
}

/** The environment variable naming the written specification's file (it lives outside this repository). */
export const SPEC_ENV = 'RESTOAPI_SPEC';

/**
 * The written specification's path from `RESTOAPI_SPEC`, or `undefined` when it is not set. A relative
 * path is taken from where the command was typed (`INIT_CWD` under npm, which runs scripts elsewhere).
 * Throws, naming the variable, when it is set to a file that cannot be read.
 */
export function specPathFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[SPEC_ENV]?.trim();
  if (!value) return undefined;
  const resolved = path.resolve(env.INIT_CWD ?? process.cwd(), value);
  if (!existsSync(resolved) || !statSync(resolved).isFile())
    throw new Error(`${SPEC_ENV}=${value}: no such file (${resolved}); point it at the written specification`);
  return resolved;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  let specPath: string | undefined;
  try {
    specPath = specPathFromEnv();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  if (!specPath) {
    console.log(
      `clause catalogue: check against the spec SKIPPED (${SPEC_ENV} is not set); kept the committed ${path.relative(repoRoot, outPath)}`,
    );
    process.exit(0);
  }
  const markdown = readFileSync(specPath, 'utf8');
  const rendered = renderClauses(markdown);
  if (process.argv.includes('--check')) {
    const current = readFileSync(outPath, 'utf8');
    if (current !== rendered) {
      console.error(`${path.relative(repoRoot, outPath)} is stale: run npm run generate -w @restoapi/contract-tests`);
      process.exit(1);
    }
    console.log('clause catalogue is fresh');
  } else {
    writeFileSync(outPath, rendered);
    console.log(`wrote ${extractClauses(markdown).length} clauses to ${path.relative(repoRoot, outPath)}`);
  }
}
