/**
 * Markdown to HTML for the documentation site: marked, with GitHub-style heading anchors and the
 * repository-relative links of the sources (`../../openapi/DECISIONS.md#callbacks`) rewritten to the
 * pages the site builds from them, so one Markdown file reads right on GitHub and on the site.
 */
import path from 'node:path/posix';
import { Marked, type Tokens } from 'marked';

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/&[a-z0-9#]+;/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** A rendered Markdown document. */
export interface RenderedMarkdown {
  html: string;
  /** The text of the first level-1 heading. */
  title: string | undefined;
  /** The level-2 headings with their anchors, for a table of contents. */
  sections: { id: string; text: string }[];
}

/** Where the site publishes a repository file: repository path → site path (e.g. `openapi/DECISIONS.md` → `decisions/index.html`). */
export type SiteLinks = ReadonlyMap<string, string>;

/**
 * Renders Markdown. `source` is the file's repository path and `page` the site path it is published
 * at: relative links to files the site publishes (`links`) are rewritten to their pages.
 */
export function renderMarkdown(
  markdown: string,
  options: { source: string; page: string; links: SiteLinks },
): RenderedMarkdown {
  const used = new Map<string, number>();
  const sections: RenderedMarkdown['sections'] = [];
  let title: string | undefined;
  const marked = new Marked({
    gfm: true,
    walkTokens(token) {
      if (token.type === 'link') {
        const link = token as Tokens.Link;
        link.href = rewriteHref(link.href, options);
      }
    },
    renderer: {
      heading({ tokens, depth, text }) {
        const inner = this.parser.parseInline(tokens);
        const base = slugify(text) || 'section';
        const count = used.get(base) ?? 0;
        used.set(base, count + 1);
        const id = count === 0 ? base : `${base}-${count}`;
        const plain = inner.replace(/<[^>]*>/g, '');
        if (depth === 1) title ??= decodeEntities(plain);
        if (depth === 2) sections.push({ id, text: decodeEntities(plain) });
        return `<h${depth} id="${id}"><a class="anchor" href="#${id}" aria-hidden="true" tabindex="-1">#</a>${inner}</h${depth}>\n`;
      },
      table(token) {
        // Wide tables scroll inside their own box instead of widening the page.
        const header = token.header
          .map((cell) => `<th${align(cell.align)}>${this.parser.parseInline(cell.tokens)}</th>`)
          .join('');
        const rows = token.rows
          .map(
            (row) =>
              `<tr>${row.map((cell) => `<td${align(cell.align)}>${this.parser.parseInline(cell.tokens)}</td>`).join('')}</tr>`,
          )
          .join('\n');
        return `<div class="table-wrap"><table>\n<thead><tr>${header}</tr></thead>\n<tbody>\n${rows}\n</tbody></table></div>\n`;
      },
    },
  });
  const html = marked.parse(markdown, { async: false });
  return { html, title, sections };
}

function align(value: 'center' | 'left' | 'right' | null): string {
  return value ? ` style="text-align:${value}"` : '';
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Rewrites a relative link to a published repository file into a link to its page; other links stay. */
export function rewriteHref(href: string, options: { source: string; page: string; links: SiteLinks }): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#') || href.startsWith('/')) return href;
  const [target = '', hash] = splitOnce(href, '#');
  if (!target) return href;
  const repoPath = path.normalize(path.join(path.dirname(options.source), target));
  const published = options.links.get(repoPath);
  if (!published) return href;
  return relativeHref(options.page, published) + (hash !== undefined ? `#${hash}` : '');
}

/** The relative URL from one site page to another (`index.html` targets end at their folder). */
export function relativeHref(fromPage: string, toPage: string): string {
  const target = toPage.endsWith('index.html') ? toPage.slice(0, -'index.html'.length) : toPage;
  const relative = path.relative(path.dirname(fromPage), target || '.');
  if (relative === '') return './';
  return target.endsWith('/') || target === '' ? `${relative}/` : relative;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
