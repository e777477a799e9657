/**
 * @restoapi/mock-server/msw: the same engine as MSW request handlers, for
 * `msw/node` (setupServer) and `msw/browser` (setupWorker).
 */
import { http, passthrough, type HttpHandler } from 'msw';
import type { MockEngine } from './index.js';

/** Options of {@link createMswHandlers}. */
export interface MswHandlerOptions {
  /** Base URL the intercepted API lives at, e.g. `https://api.example.test` (default `http://localhost:4010`). */
  baseUrl?: string;
}

/**
 * MSW handlers that answer every request under `baseUrl` from a mock instance.
 * @example
 * const mock = await createMock();
 * const server = setupServer(...createMswHandlers(mock, { baseUrl: 'https://api.test' }));
 */
export function createMswHandlers(mock: MockEngine, options: MswHandlerOptions = {}): HttpHandler[] {
  const base = new URL(options.baseUrl ?? 'http://localhost:4010');
  const prefix = base.pathname.replace(/\/$/, '');
  return [
    http.all(`${base.origin}${prefix}/*`, async ({ request }) => {
      const url = new URL(request.url);
      if (!url.pathname.startsWith(prefix)) return passthrough();
      // The engine routes on paths relative to the API base, whatever origin MSW intercepted.
      const local = new URL(url.pathname.slice(prefix.length) + url.search, 'http://localhost:4010');
      return mock.handle(new Request(local, request));
    }),
  ];
}
