/**
 * The order board in a real browser page, with the stateful mock running inside the page behind MSW's
 * service worker (`setupWorker`): the board calls its real API URL and the worker answers from the mock.
 * The buttons use the in-page control client to break the next reads, as a developer would to see the
 * board's error handling.
 */
import { setupWorker } from 'msw/browser';
import { createControlClient, createMock } from '@restoapi/mock-server';
import { createMswHandlers } from '@restoapi/mock-server/msw';
import { createRestoClient } from '@restoapi/sdk';
import { mountOrderBoard } from '../order-board.js';

/** The API the page believes it talks to; nothing listens there, the service worker answers. */
const API = 'https://api.pizza-piccolo.test';

const mock = createMock();
const worker = setupWorker(...createMswHandlers(mock, { baseUrl: API }));
// The worker script is public/mockServiceWorker.js of `npx msw init public/`; other requests go to the network.
await worker.start({ onUnhandledRequest: 'bypass', quiet: true, serviceWorker: { url: '/mockServiceWorker.js' } });

const control = createControlClient({ baseUrl: API });
const api = createRestoClient({ baseUrl: API, retryInitialDelayMs: 50 });
const { api_user } = await api.session.login('admin@pizza.demo', 'demo');

const board = document.querySelector<HTMLElement>('#board')!;
const status = document.querySelector<HTMLElement>('#status')!;
let loads = 0;
/** Renders the board; `data-loads` on the body counts finished renders (tests wait on it). */
const reload = async (): Promise<void> => {
  await mountOrderBoard(board, api, [11, 12]);
  document.body.dataset.loads = String(++loads);
};

/** Arms a fault on the next `count` reads of the order list through the control API (answered in the page too). */
async function failNextReads(status: 500 | 503, count: number): Promise<void> {
  const { response } = await control.POST('/__mock/faults', {
    body: { method: 'GET', path: '/api/orders', status, count, ...(status === 503 ? { retryAfter: 0 } : {}) },
  });
  if (response.status !== 201) throw new Error(`the fault was not armed: ${response.status}`);
}

document.querySelector('#fail-once')!.addEventListener('click', () => void failNextReads(503, 1).then(reload));
document.querySelector('#fail-all')!.addEventListener('click', () => void failNextReads(500, 3).then(reload));
document.querySelector('#reload')!.addEventListener('click', () => void reload());

status.textContent = `Signed in as ${api_user.name} (mock in this page, answered by MSW's service worker)`;
await reload();
document.body.dataset.ready = 'true';
