import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { createMock, type EngineRoute } from '../index.js';
import { consoleDirectory, consoleRoute, CONSOLE_CSP, readConsoleAssets } from './console-route.js';
import { loadDocsRoute } from './docs-route.js';
import { createStaticRoute, type StaticAsset } from './static-route.js';

const base = 'http://localhost:4010';
const html = (text: string): StaticAsset => ({ contentType: 'text/html; charset=utf-8', body: text });
const assets = new Map<string, StaticAsset>([
  ['index.html', html('<h1>home</h1>')],
  ['guides/qa.html', html('<h1>qa</h1>')],
  ['reference/index.html', html('<h1>reference</h1>')],
  ['assets/site.css', { contentType: 'text/css; charset=utf-8', body: 'body{}' }],
  ['logo.bin', { contentType: 'application/octet-stream', body: new Uint8Array([1, 2, 3]) }],
]);

/** A mock with the routes in front of the API, as the CLI wires them. */
function mockWith(...routes: EngineRoute[]) {
  return createMock({ routes });
}

describe('createStaticRoute', () => {
  const mock = mockWith(createStaticRoute({ prefix: '/docs', assets, headers: { 'X-Extra': 'yes' } }));
  const get = (path: string, init?: RequestInit) => mock.fetch(`${base}${path}`, init);

  test('serves files with their Content-Type, an ETag and the extra headers', async () => {
    const res = await get('/docs/assets/site.css');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(res.headers.get('x-extra')).toBe('yes');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]+-[0-9a-f]{8}"$/);
    expect(await res.text()).toBe('body{}');
    const bytes = await get('/docs/logo.bin');
    expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
  });

  test('answers index.html for directory paths and redirects a directory asked without its slash', async () => {
    expect(await (await get('/docs/')).text()).toBe('<h1>home</h1>');
    expect(await (await get('/docs/reference/')).text()).toBe('<h1>reference</h1>');
    const root = await get('/docs?x=1', { redirect: 'manual' });
    expect(root.status).toBe(308);
    expect(root.headers.get('location')).toBe('/docs/?x=1');
    const reference = await get('/docs/reference', { redirect: 'manual' });
    expect(reference.status).toBe(308);
    expect(reference.headers.get('location')).toBe('/docs/reference/');
  });

  test('answers 304 to a matching If-None-Match and HEAD without a body', async () => {
    const first = await get('/docs/guides/qa.html');
    const etag = first.headers.get('etag')!;
    const again = await get('/docs/guides/qa.html', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    const head = await get('/docs/guides/qa.html', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(new TextEncoder().encode('<h1>qa</h1>').byteLength));
    expect(await head.text()).toBe('');
  });

  test('404 for unknown paths under the prefix, also for attempts to climb out of it', async () => {
    expect((await get('/docs/nope.html')).status).toBe(404);
    expect((await get('/docs/%2e%2e/package.json')).status).toBe(404);
    expect((await get('/docs/guides/%E0%A4%A')).status).toBe(404);
  });

  test('405 for other methods under the prefix', async () => {
    const res = await get('/docs/index.html', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });

  test('leaves paths outside the prefix to the rest of the mock', async () => {
    const route = createStaticRoute({ prefix: '/docs', assets });
    expect(
      await route(new Request(`${base}/docsx/index.html`), new URL(`${base}/docsx/index.html`), mock),
    ).toBeUndefined();
    expect(await route(new Request(`${base}/api/orders`), new URL(`${base}/api/orders`), mock)).toBeUndefined();
    // The API behind still answers.
    const api = await get('/api/orders');
    expect(api.status).toBe(401);
  });

  test('serves the site 404 page when there is one', async () => {
    const withPage = mockWith(
      createStaticRoute({ prefix: '/site', assets: new Map([...assets, ['404.html', html('<h1>lost</h1>')]]) }),
    );
    const res = await withPage.fetch(`${base}/site/missing`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('<h1>lost</h1>');
  });

  test('refuses a prefix without its leading slash', () => {
    expect(() => createStaticRoute({ prefix: 'docs', assets })).toThrow(TypeError);
  });
});

describe('consoleRoute', () => {
  test('serves the console files from the package with a strict Content-Security-Policy', async () => {
    const mock = mockWith(consoleRoute());
    const page = await mock.fetch(`${base}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    const text = await page.text();
    expect(text).toContain('<script type="module" src="console.js"></script>');
    const script = await mock.fetch(`${base}/console/console.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await mock.fetch(`${base}/console/console.css`)).status).toBe(200);
    expect((await mock.fetch(`${base}/console`, { redirect: 'manual' })).status).toBe(308);
  });

  test('the console files reach only their own origin', () => {
    const files = readConsoleAssets(consoleDirectory());
    expect([...files.keys()].sort()).toEqual(['console.css', 'console.js', 'index.html']);
    for (const [name, asset] of files) {
      const text = String(asset.body);
      // No absolute URL is loaded: the only http(s) string allowed is the SVG namespace.
      const urls = text.match(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s'")]*/gi) ?? [];
      expect(
        urls.filter((u) => u !== 'http://www.w3.org/2000/svg'),
        name,
      ).toEqual([]);
    }
    const script = String(files.get('console.js')!.body);
    const fetched = [...script.matchAll(/getJson\('([^']+)'\)/g)].map((m) => m[1]);
    expect(fetched.length).toBeGreaterThan(0);
    for (const path of fetched) expect(path).toMatch(/^\/__mock\//);
    expect(script).not.toMatch(/innerHTML|insertAdjacentHTML|document\.write|eval\(/);
  });

  test('the console page is accessible markup: landmarks, headings, captioned tables, a live region', () => {
    const page = String(readConsoleAssets().get('index.html')!.body);
    expect(page).toContain('<html lang="en">');
    expect(page).toMatch(/<main id="main">/);
    expect(page.match(/<h2 /g)?.length).toBe(4);
    const tables = page.match(/<table /g)?.length ?? 0;
    expect(page.match(/<caption>/g)?.length).toBe(tables);
    expect(page).toContain('aria-live="polite"');
    expect(page).toContain('role="status"');
  });
});

describe('loadDocsRoute', () => {
  test('builds the documentation site from @restoapi/docs and serves it at /docs', async () => {
    const docs = await loadDocsRoute();
    expect(docs.note).toBeUndefined();
    expect(docs.files).toBeGreaterThan(8);
    const mock = mockWith(docs.route!);
    const reference = await mock.fetch(`${base}/docs/reference/`);
    expect(reference.status).toBe(200);
    expect(await reference.text()).toContain('id="openapi-document"');
    expect((await mock.fetch(`${base}/docs/guides/carriers.html`)).status).toBe(200);
  });

  test('serves a prebuilt site file (what the published package carries) instead of building one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'docs-site-'));
    try {
      const file = path.join(dir, 'docs-site.json');
      await writeFile(file, JSON.stringify({ files: { 'index.html': html('<h1>prebuilt</h1>') } }));
      const docs = await loadDocsRoute({ siteFile: file });
      expect(docs.files).toBe(1);
      const page = await mockWith(docs.route!).fetch(`${base}/docs/`);
      expect(await page.text()).toBe('<h1>prebuilt</h1>');

      await writeFile(file, '{"pages": []}');
      const broken = await loadDocsRoute({ siteFile: file });
      expect(broken.route).toBeUndefined();
      expect(broken.note).toBe(`the documentation site could not be read from ${file} (${file} holds no "files")`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('degrades to a note when the package is not there', async () => {
    const docs = await loadDocsRoute({ specifier: '@restoapi/no-such-docs-package' });
    expect(docs.route).toBeUndefined();
    expect(docs.note).toMatch(/not available/);
  });
});
