/**
 * Serves the browser example on http://localhost:4173 (or `--port N`): open it, press the buttons.
 * Run: `npm run frontend-msw:browser`.
 */
import { parseArgs } from 'node:util';
import { servePages } from '../../../scripts/testing/chromium.js';
import { orderBoardPage } from './page-files.js';

const { values } = parseArgs({ options: { port: { type: 'string', default: '4173' } } });
const server = await servePages(await orderBoardPage(), 'localhost', Number(values.port));
console.log(`Order board with the mock in the page: ${server.url}/  (Ctrl+C stops)`);
process.once('SIGINT', () => void server.close().then(() => process.exit(0)));
