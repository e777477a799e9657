/**
 * @restoapi/docs: the documentation site, built in memory. `npm run build -w @restoapi/docs` writes
 * it to `docs/dist/`; the mock server's CLI serves the same map at `/docs`.
 *
 * Everything is bundled: the API reference is Redoc's standalone bundle with the OpenAPI document
 * inlined, and no page loads anything from another origin (no CDN, no web fonts).
 */
import { readFile, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { controlDocument } from '../../packages/mock-server/src/generated/control-document.js';
import { escapeHtml, relativeHref, renderMarkdown, type SiteLinks } from './markdown.js';

/** One file of the site. */
export interface SiteAsset {
  contentType: string;
  body: Uint8Array | string;
}

/** The site: path relative to its root (`index.html`, `reference/index.html`, `guides/qa.html`…) → file. */
export type DocsSite = Map<string, SiteAsset>;

/** The guides, in the order the landing page lists them. */
export const GUIDES = [
  {
    name: 'integrators',
    title: 'Integrators',
    audience: 'You sync menus, read orders and run the logistics of a restaurant business.',
    uses: '@restoapi/sdk',
  },
  {
    name: 'carriers',
    title: 'Carriers',
    audience: 'You run a delivery company that receives the service’s callbacks and delivers its orders.',
    uses: '@restoapi/carrier-kit',
  },
  {
    name: 'qa',
    title: 'QA engineers',
    audience: 'You check that an implementation of the API keeps the contract, or test against the mock.',
    uses: '@restoapi/contract-tests',
  },
] as const;

export const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

/** The Content-Type of a site path, from its extension. */
export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

const require = createRequire(import.meta.url);
const docsRoot = fileURLToPath(new URL('..', import.meta.url));

/** Where the inputs are: the bundled OpenAPI document, DECISIONS.md, Redoc's standalone bundle, the guides and the stylesheet. */
export function siteSources(): { openapi: string; decisions: string; redoc: string; guides: string; assets: string } {
  const openapiPackage = path.dirname(require.resolve('@restoapi/openapi/package.json'));
  return {
    openapi: require.resolve('@restoapi/openapi/openapi.json'),
    decisions: path.join(openapiPackage, 'DECISIONS.md'),
    redoc: require.resolve('redoc/bundles/redoc.standalone.js'),
    guides: path.join(docsRoot, 'guides'),
    assets: path.join(docsRoot, 'assets'),
  };
}

/** Repository files the site publishes, so links between them survive the move (repository path → site path). */
const SITE_LINKS: SiteLinks = new Map([
  ['openapi/DECISIONS.md', 'decisions/index.html'],
  ['docs/guides/integrators.md', 'guides/integrators.html'],
  ['docs/guides/carriers.md', 'guides/carriers.html'],
  ['docs/guides/qa.md', 'guides/qa.html'],
  ['openapi/generated/openapi.json', 'reference/index.html'],
  ['openapi/openapi.yaml', 'reference/index.html'],
  ['openapi/control/control.yaml', 'reference/control/index.html'],
  ['README.md', 'index.html'],
]);

/** The Redocly logo Redoc's side menu loads from cdn.redoc.ly, replaced by a local mark so nothing leaves the origin. */
const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const LOCAL_LOGO =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%23b4441f'/%3E%3C/svg%3E";

/**
 * Builds the whole site in memory.
 * @example
 * const site = await buildDocsSite();
 * site.get('reference/index.html')?.contentType; // 'text/html; charset=utf-8'
 */
export async function buildDocsSite(): Promise<DocsSite> {
  const sources = siteSources();
  const site: DocsSite = new Map();
  const put = (file: string, body: Uint8Array | string): void => {
    site.set(file, { contentType: contentTypeOf(file), body });
  };

  const [documentText, decisions, redoc, css] = await Promise.all([
    readFile(sources.openapi, 'utf8'),
    readFile(sources.decisions, 'utf8'),
    readFile(sources.redoc, 'utf8'),
    readFile(path.join(sources.assets, 'site.css'), 'utf8'),
  ]);
  const document = JSON.parse(documentText) as OpenApiDocument;

  put('assets/site.css', css);
  put('assets/reference.js', await readFile(path.join(sources.assets, 'reference.js'), 'utf8'));

  // The API reference: Redoc's standalone bundle, the document inlined (and beside it for download).
  if (!redoc.includes(REDOC_CDN_LOGO) && /https:\/\/cdn\.redoc\.ly/.test(redoc)) {
    throw new Error(
      'redoc.standalone.js loads something else from cdn.redoc.ly: check the bundle before publishing it',
    );
  }
  put('reference/redoc.standalone.js', redoc.split(REDOC_CDN_LOGO).join(LOCAL_LOGO));
  put('reference/openapi.json', documentText);
  put('reference/index.html', referencePage({ page: 'reference/index.html', document, title: 'API reference' }));
  put('reference/control/openapi.json', JSON.stringify(controlDocument, null, 2));
  put(
    'reference/control/index.html',
    referencePage({
      page: 'reference/control/index.html',
      document: controlDocument as unknown as OpenApiDocument,
      title: 'Mock control API',
    }),
  );

  // The decisions, rendered from openapi/DECISIONS.md.
  const decisionsPage = renderMarkdown(decisions, {
    source: 'openapi/DECISIONS.md',
    page: 'decisions/index.html',
    links: SITE_LINKS,
  });
  put(
    'decisions/index.html',
    layout({
      page: 'decisions/index.html',
      title: 'Decisions',
      current: 'decisions',
      body: article(decisionsPage.html, decisionsPage.sections, 'decisions/index.html'),
    }),
  );

  // The guides.
  const guideFiles = new Set((await readdir(sources.guides)).filter((file) => file.endsWith('.md')));
  for (const guide of GUIDES) {
    const file = `${guide.name}.md`;
    if (!guideFiles.has(file)) throw new Error(`docs/guides/${file} is missing`);
    const page = `guides/${guide.name}.html`;
    const rendered = renderMarkdown(await readFile(path.join(sources.guides, file), 'utf8'), {
      source: `docs/guides/${file}`,
      page,
      links: SITE_LINKS,
    });
    put(
      page,
      layout({
        page,
        title: rendered.title ?? guide.title,
        current: guide.name,
        body: article(rendered.html, rendered.sections, page),
      }),
    );
  }

  put('index.html', landingPage(document));
  put(
    '404.html',
    layout({
      page: '404.html',
      title: 'Not found',
      current: '',
      body: '<main id="main" class="content"><h1>Not found</h1><p>There is no page at this address. <a href="./">Back to the documentation</a>.</p></main>',
    }),
  );
  return site;
}

/** The parts of an OpenAPI document the pages read. */
interface OpenApiDocument {
  info: { title: string; version: string; summary?: string; description?: string };
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, unknown>;
}

const NAV: { id: string; label: string; page: string }[] = [
  { id: 'home', label: 'Overview', page: 'index.html' },
  { id: 'integrators', label: 'Integrators', page: 'guides/integrators.html' },
  { id: 'carriers', label: 'Carriers', page: 'guides/carriers.html' },
  { id: 'qa', label: 'QA', page: 'guides/qa.html' },
  { id: 'decisions', label: 'Decisions', page: 'decisions/index.html' },
  { id: 'reference', label: 'API reference', page: 'reference/index.html' },
  { id: 'control', label: 'Control API', page: 'reference/control/index.html' },
];

function header(page: string, current: string): string {
  const link = (item: (typeof NAV)[number]): string =>
    `<li><a href="${relativeHref(page, item.page)}"${item.id === current ? ' aria-current="page"' : ''}>${item.label}</a></li>`;
  return `<header class="topbar">
  <a class="skip" href="#main">Skip to content</a>
  <a class="brand" href="${relativeHref(page, 'index.html')}"><span class="brand-mark" aria-hidden="true"></span>RestoAPI <span class="brand-sub">toolkit docs</span></a>
  <nav aria-label="Documentation"><ul>${NAV.map(link).join('')}</ul></nav>
</header>`;
}

function layout(options: { page: string; title: string; current: string; body: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · RestoAPI docs</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${relativeHref(options.page, 'assets/site.css')}">
</head>
<body>
${header(options.page, options.current)}
${options.body}
<footer class="footer"><p>RestoAPI toolkit · built from <code>openapi/</code> and <code>docs/</code> · served by <code>npm start</code> at <code>/docs</code></p></footer>
</body>
</html>
`;
}

function article(html: string, sections: { id: string; text: string }[], page: string): string {
  const toc = sections.length
    ? `<nav class="toc" aria-labelledby="toc-title"><h2 id="toc-title">On this page</h2><ol>${sections
        .map((s) => `<li><a href="#${s.id}">${escapeHtml(s.text)}</a></li>`)
        .join('')}</ol></nav>`
    : '';
  return `<div class="with-toc" data-page="${escapeHtml(page)}">${toc}<main id="main" class="content prose">${html}</main></div>`;
}

/** JSON inside `<script type="application/json">`: `<` escaped so the text can never close the element. */
function inlineJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function referencePage(options: { page: string; document: OpenApiDocument; title: string }): string {
  const redoc = relativeHref(options.page, 'reference/redoc.standalone.js');
  const init = relativeHref(options.page, 'assets/reference.js');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · RestoAPI docs</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${relativeHref(options.page, 'assets/site.css')}">
</head>
<body class="reference-page">
${header(options.page, options.page.startsWith('reference/control') ? 'control' : 'reference')}
<main id="main" aria-label="${escapeHtml(options.title)}">
<div id="redoc" data-download="openapi.json"><p class="loading" role="status">Loading the ${escapeHtml(options.title)} (${escapeHtml(options.document.info.title)} ${escapeHtml(options.document.info.version)})…</p></div>
<noscript><p class="content">The reference needs JavaScript. The document itself is <a href="openapi.json">openapi.json</a>.</p></noscript>
</main>
<script id="openapi-document" type="application/json">${inlineJson(options.document)}</script>
<script src="${redoc}"></script>
<script src="${init}"></script>
</body>
</html>
`;
}

function countOperations(document: OpenApiDocument): number {
  let count = 0;
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) if (item[method]) count += 1;
  }
  return count;
}

function landingPage(document: OpenApiDocument): string {
  const page = 'index.html';
  const cards = GUIDES.map(
    (guide) => `<li class="card">
  <h3><a href="${relativeHref(page, `guides/${guide.name}.html`)}">${guide.title}</a></h3>
  <p>${escapeHtml(guide.audience)}</p>
  <p class="uses">Uses <code>${guide.uses}</code></p>
</li>`,
  ).join('\n');
  const tags = (document.tags ?? [])
    .map(
      (tag) =>
        `<li><strong>${escapeHtml(tag.name)}</strong>${tag.description ? `: ${inlineCode(firstSentence(tag.description))}` : ''}</li>`,
    )
    .join('');
  const body = `<main id="main" class="content landing">
<section class="hero" aria-labelledby="title">
  <h1 id="title">RestoAPI toolkit</h1>
  <p class="lead">A TypeScript toolkit for the <strong>Online Restaurant Ordering Service API</strong>, the service that keeps restaurant menus, publishes storefronts and runs the logistics of orders and delivery. One OpenAPI 3.1 description is the single source of truth; the SDK, the stateful mock server, the carrier kit, the contract tests and this site are derived from it.</p>
  <p class="facts">${escapeHtml(document.info.title)} ${escapeHtml(document.info.version)} · ${countOperations(document)} operations · ${Object.keys(document.webhooks ?? {}).length} callbacks</p>
  <p class="actions"><a class="button" href="${relativeHref(page, 'reference/index.html')}">Open the API reference</a> <a class="button secondary" href="/console">Open the live console</a></p>
</section>
<section aria-labelledby="who">
  <h2 id="who">Who it serves</h2>
  <ul class="cards">
${cards}
  </ul>
</section>
<section aria-labelledby="start">
  <h2 id="start">Start in two commands</h2>
<pre><code>npm install &amp;&amp; npm start   # the mock on http://localhost:4010 with the demo data
npm test                   # every check and test of every package</code></pre>
  <p>The mock answers the whole API with a demo world (two restaurant chains in Berlin), and serves this site at <code>/docs</code> and the live console at <code>/console</code>: orders by status, delivery zones, couriers moving, callbacks and notifications. Demo logins use the password <code>demo</code>: <code>admin@pizza.demo</code>, <code>dispatcher@demo</code>, <code>courier@pizza.demo</code>.</p>
</section>
<section aria-labelledby="reference">
  <h2 id="reference">Reference</h2>
  <ul class="links">
    <li><a href="${relativeHref(page, 'reference/index.html')}">API reference</a>: every operation, schema and callback of the service, with examples (<a href="${relativeHref(page, 'reference/openapi.json')}">openapi.json</a>).</li>
    <li><a href="${relativeHref(page, 'decisions/index.html')}">Decisions</a>: what the written specification leaves “not shown”, and what was decided, marked <code>x-decision</code> in the document.</li>
    <li><a href="${relativeHref(page, 'reference/control/index.html')}">Mock control API</a>: reset the world, place storefront orders, register carriers, read the callback log and the outbox, move the virtual clock, inject faults.</li>
  </ul>
  <h3>The API’s parts</h3>
  <ul class="tags">${tags}</ul>
</section>
</main>`;
  return layout({ page, title: 'RestoAPI toolkit', current: 'home', body });
}

/** Escaped text with Markdown's `code` spans as <code>. */
function inlineCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function firstSentence(text: string): string {
  const plain = text.replace(/\s+/g, ' ').trim();
  const end = plain.search(/\.(\s|$)/);
  return end < 0 ? plain : plain.slice(0, end + 1);
}
