/**
 * The browser example as files to serve: the page, its script (main.ts bundled with esbuild for the
 * browser) and MSW's worker script, which `npx msw init public/` copies into an app.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleScript } from '../../../scripts/bundling.js';
import type { PageFile } from '../../../scripts/testing/chromium.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** `/index.html`, `/app.js` and `/mockServiceWorker.js`. */
export async function orderBoardPage(): Promise<Record<string, PageFile>> {
  const worker = createRequire(import.meta.url).resolve('msw/mockServiceWorker.js');
  return {
    '/index.html': { type: 'text/html; charset=utf-8', body: await readFile(path.join(here, 'index.html'), 'utf8') },
    '/app.js': {
      type: 'text/javascript; charset=utf-8',
      body: await bundleScript(`import './main.ts';`, here, 'browser', { minify: true }),
    },
    '/mockServiceWorker.js': { type: 'text/javascript; charset=utf-8', body: await readFile(worker, 'utf8') },
  };
}
