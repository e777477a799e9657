import { readFile } from 'node:fs/promises';
import path from 'node:path/posix';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildDocsSite, GUIDES, siteSources, type DocsSite } from './site.js';

let site: DocsSite;
const text = (file: string): string => {
  const asset = site.get(file);
  if (!asset) throw new Error(`${file} is not in the site`);
  return typeof asset.body === 'string' ? asset.body : new TextDecoder().decode(asset.body);
};
const htmlPages = (): string[] => [...site.keys()].filter((file) => file.endsWith('.html'));

beforeAll(async () => {
  site = await buildDocsSite();
});

/** Every URL a page makes the browser load by itself: scripts, styles, icons, fonts, images, frames. */
function resourceUrls(html: string): string[] {
  const urls: string[] = [];
  const patterns = [
    /<script\b[^>]*\bsrc\s*=\s*["']([^"']*)["']/gi,
    /<link\b[^>]*\bhref\s*=\s*["']([^"']*)["']/gi,
    /<(?:img|iframe|source|video|audio|embed|track|input)\b[^>]*\bsrc\s*=\s*["']([^"']*)["']/gi,
    /\bsrcset\s*=\s*["']([^"']*)["']/gi,
    /<object\b[^>]*\bdata\s*=\s*["']([^"']*)["']/gi,
    /url\(\s*["']?([^"')]+)["']?\s*\)/gi,
    /@import\s+["']([^"']+)["']/gi,
  ];
  for (const pattern of patterns) for (const match of html.matchAll(pattern)) urls.push(match[1]!);
  return urls;
}

/** The blockquotes of a Markdown text: runs of lines starting with `>`. */
function blockquotes(markdown: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  for (const line of markdown.split('\n')) {
    if (line.startsWith('>')) current.push(line);
    else if (current.length) {
      blocks.push(current.join('\n'));
      current = [];
    }
  }
  if (current.length) blocks.push(current.join('\n'));
  return blocks;
}

const isExternal = (url: string): boolean => /^(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(url.trim());

describe('buildDocsSite', () => {
  test('has every page and file, each with its Content-Type', () => {
    const expected = [
      'index.html',
      '404.html',
      'assets/site.css',
      'assets/reference.js',
      'reference/index.html',
      'reference/openapi.json',
      'reference/redoc.standalone.js',
      'reference/control/index.html',
      'reference/control/openapi.json',
      'decisions/index.html',
      ...GUIDES.map((guide) => `guides/${guide.name}.html`),
    ];
    expect([...site.keys()].sort()).toEqual(expected.sort());
    expect(site.get('index.html')!.contentType).toBe('text/html; charset=utf-8');
    expect(site.get('assets/site.css')!.contentType).toBe('text/css; charset=utf-8');
    expect(site.get('reference/redoc.standalone.js')!.contentType).toBe('text/javascript; charset=utf-8');
    expect(site.get('reference/openapi.json')!.contentType).toBe('application/json; charset=utf-8');
  });

  test('no page loads anything from another origin: no CDN, no web fonts', () => {
    for (const file of htmlPages()) {
      const urls = resourceUrls(text(file));
      expect(urls.length, file).toBeGreaterThan(0);
      expect(urls.filter(isExternal), file).toEqual([]);
      expect(
        urls.filter((url) => /^(?:https?|ftp):/i.test(url)),
        file,
      ).toEqual([]);
    }
    const css = text('assets/site.css');
    expect(resourceUrls(css).filter((url) => !url.startsWith('data:'))).toEqual([]);
    expect(css).not.toMatch(/@font-face/);
    for (const [file, asset] of site) {
      if (typeof asset.body !== 'string') continue;
      expect(asset.body, file).not.toMatch(
        /fonts\.(googleapis|gstatic)\.com|cdn\.redoc\.ly|cdn\.jsdelivr|unpkg\.com|cdnjs/,
      );
    }
  });

  test('the reference is Redoc initialised with the bundled document, inlined in the page', async () => {
    const sources = siteSources();
    const bundled = JSON.parse(await readFile(sources.openapi, 'utf8')) as unknown;
    const page = text('reference/index.html');
    const inline = /<script id="openapi-document" type="application\/json">([\s\S]*?)<\/script>/.exec(page);
    expect(inline).not.toBeNull();
    expect(JSON.parse(inline![1]!)).toEqual(bundled);
    expect(page).toContain('<script src="redoc.standalone.js"></script>');
    expect(page).toContain('<script src="../assets/reference.js"></script>');
    expect(JSON.parse(text('reference/openapi.json'))).toEqual(bundled);
    const init = text('assets/reference.js');
    expect(init).toContain('Redoc.init(');
    expect(init).toContain('hideDownloadButton: false');
    // The bundle is Redoc's own, with only the CDN logo replaced.
    const original = await readFile(sources.redoc, 'utf8');
    const copied = text('reference/redoc.standalone.js');
    expect(copied).not.toContain('https://cdn.redoc.ly/');
    expect(copied.length).toBeGreaterThan(original.length - 200);
    expect(copied.slice(0, 1000)).toBe(original.slice(0, 1000));
  });

  test('the control API reference inlines the mock control document', () => {
    const page = text('reference/control/index.html');
    const inline = /<script id="openapi-document" type="application\/json">([\s\S]*?)<\/script>/.exec(page)!;
    const document = JSON.parse(inline[1]!) as { info: { title: string }; paths: Record<string, unknown> };
    expect(document.info.title).toBe('RestoAPI mock server control API');
    expect(Object.keys(document.paths)).toContain('/__mock/orders');
    expect(page).toContain('<script src="../redoc.standalone.js"></script>');
  });

  test('every link between pages leads to a page of the site, and every anchor to a heading', () => {
    for (const file of htmlPages()) {
      const html = text(file);
      for (const match of html.matchAll(/<a\b[^>]*\bhref="([^"]*)"/g)) {
        const href = match[1]!.replace(/&amp;/g, '&');
        if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/')) continue; // another site, or the mock (/console)
        const [target = '', hash] = href.split('#');
        let resolved = target ? path.normalize(path.join(path.dirname(file), target)) : file;
        if (target.endsWith('/') || target === '.' || target === './') resolved = path.join(resolved, 'index.html');
        if (resolved === '.') resolved = 'index.html';
        expect(site.has(resolved), `${file} links to ${href} (${resolved})`).toBe(true);
        if (hash && resolved.endsWith('.html'))
          expect(text(resolved), `${file} links to ${href}`).toContain(`id="${hash}"`);
      }
    }
  });

  test('pages have a language, a title, one h1, a skip link and the navigation', () => {
    for (const file of htmlPages().filter((f) => !f.startsWith('reference/'))) {
      const html = text(file);
      expect(html, file).toContain('<html lang="en">');
      expect(html, file).toMatch(/<title>[^<]+<\/title>/);
      expect(html.match(/<h1[\s>]/g)?.length, file).toBe(1);
      expect(html, file).toContain('href="#main"');
      expect(html, file).toContain('<nav aria-label="Documentation">');
    }
  });

  test('the landing page says what the toolkit is, whom it serves, and links the guides and the reference', () => {
    const landing = text('index.html');
    expect(landing).toContain('<h1 id="title">RestoAPI toolkit</h1>');
    for (const guide of GUIDES) expect(landing).toContain(`href="guides/${guide.name}.html"`);
    expect(landing).toContain('href="reference/"');
    expect(landing).toContain('href="decisions/"');
    expect(landing).toContain('href="/console"');
  });
});

describe('the guides', () => {
  const guides = async () => {
    const sources = siteSources();
    const decisions = await readFile(sources.decisions, 'utf8');
    return Promise.all(
      GUIDES.map(async (guide) => ({
        name: guide.name,
        markdown: await readFile(path.join(sources.guides, `${guide.name}.md`), 'utf8'),
        decisions,
      })),
    );
  };

  test('quote the decisions word for word (a stale quote fails here)', async () => {
    for (const { name, markdown, decisions } of await guides()) {
      const blocks = blockquotes(markdown).filter((block) => block.startsWith('> **Decision**'));
      expect(blocks.length, `${name}: decisions quoted`).toBeGreaterThanOrEqual(4);
      for (const block of blocks) {
        expect(block, name).toMatch(/\]\(\.\.\/\.\.\/openapi\/DECISIONS\.md#[a-z-]+\)/);
        const quotes = [...block.replace(/\n> ?/g, ' ').matchAll(/“([^”]+)”/g)].map((m) => m[1]!);
        expect(quotes.length, block).toBeGreaterThan(0);
        for (const quote of quotes)
          expect(decisions, `${name} quotes a decision that is not in DECISIONS.md`).toContain(quote);
      }
    }
  });

  test('link the decisions, which the site rewrites to its decisions page', () => {
    for (const guide of GUIDES) {
      const html = text(`guides/${guide.name}.html`);
      expect(html).toContain('href="../decisions/#');
      expect(html).not.toMatch(/href="[^"]*DECISIONS\.md/);
      expect(html).toMatch(/<blockquote>/);
    }
  });

  test('are rendered with their headings as anchors and a table of contents', () => {
    const html = text('guides/carriers.html');
    expect(html).toContain('<h1 id="carriers-receive-callbacks-deliver-orders-report-couriers">');
    expect(html).toContain('<a href="#the-delivery-block">The delivery block</a>');
    expect(html).toContain(
      '<title>Carriers: receive callbacks, deliver orders, report couriers · RestoAPI docs</title>',
    );
  });
});
