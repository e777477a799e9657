/**
 * The guides promise that their ```ts snippet blocks run as they are against the mock. This runs
 * each one against a fresh mock server (its `http://localhost:4010` pointed at the server), with the
 * workspace packages resolved to their sources.
 */
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createMockServer, type MockServer } from '../../packages/mock-server/src/node.js';
import { GUIDES } from './site.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = path.join(root, 'reports', 'docs-snippets');

/** Workspace packages → their sources (the snippets import them as users do). */
const SOURCES: Record<string, string> = {
  '@restoapi/sdk': 'packages/sdk/src/index.ts',
  '@restoapi/mock-server': 'packages/mock-server/src/index.ts',
  '@restoapi/mock-server/node': 'packages/mock-server/src/node.ts',
  '@restoapi/mock-server/msw': 'packages/mock-server/src/msw.ts',
  '@restoapi/carrier-kit': 'packages/carrier-kit/src/index.ts',
  '@restoapi/carrier-kit/node': 'packages/carrier-kit/src/node.ts',
  '@restoapi/contract-tests': 'contract-tests/src/index.ts',
};

/** The ```ts snippet blocks of a guide. */
function snippetsOf(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts snippet\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

const cases = GUIDES.flatMap((guide) => {
  const markdown = readFileSync(path.join(root, 'docs', 'guides', `${guide.name}.md`), 'utf8');
  return snippetsOf(markdown).map((code, index) => ({
    name: `${guide.name} #${index + 1}`,
    file: `${guide.name}-${index + 1}.ts`,
    code,
  }));
});

let server: MockServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

describe('the guides’ snippets run against the mock', () => {
  test('every guide has runnable snippets', () => {
    for (const guide of GUIDES)
      expect(cases.filter((c) => c.name.startsWith(`${guide.name} `)).length, guide.name).toBeGreaterThan(0);
  });

  test.each(cases)(
    '$name',
    async ({ file, code }) => {
      server = await createMockServer({ port: 0, config: { importDurationMs: 300 } });
      const source = code
        .replaceAll("'http://localhost:4010'", JSON.stringify(server.url))
        .replace(/from '(@restoapi\/[a-z-]+(?:\/[a-z]+)?)'/g, (whole, specifier: string) =>
          SOURCES[specifier]
            ? `from ${JSON.stringify(pathToFileURL(path.join(root, SOURCES[specifier]!)).href)}`
            : whole,
        );
      const dir = path.join(work, path.basename(file, '.ts'));
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      const target = path.join(dir, file);
      await writeFile(target, `${source}\nexport {};\n`);
      const lines: string[] = [];
      vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
        lines.push(parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(' '));
      });
      // Files a snippet writes (a receipt) land in its own folder.
      const cwd = process.cwd();
      process.chdir(dir);
      try {
        await import(/* @vite-ignore */ pathToFileURL(target).href);
      } finally {
        process.chdir(cwd);
      }
      await writeFile(path.join(dir, 'output.txt'), `${lines.join('\n')}\n`);
      expect(lines.length, 'the snippet prints what it did').toBeGreaterThan(0);
      expect(lines.join('\n')).not.toMatch(/undefined/);
    },
    60_000,
  );
});
