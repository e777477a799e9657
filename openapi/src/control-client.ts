import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/control.js';

/** The typed openapi-fetch client of the mock's control API (`/__mock`). */
export type ControlClient = Client<paths>;

/** Options of {@link createControlClient}. */
export interface ControlClientOptions {
  /** Base address of the mock, e.g. `http://127.0.0.1:4010` (the control paths start with `/__mock`). */
  baseUrl: string;
  /** A `fetch` to use instead of the global one, e.g. `mock.fetch` to stay in-process. */
  fetch?: (input: Request) => Promise<Response>;
  /** The mock session every call works on (sent as `X-Mock-Session`); the default session when absent. */
  session?: string;
  /** The mock's control token (`--control-token`), sent as `Authorization: Bearer` (the `ControlToken` scheme). */
  token?: string;
}

/**
 * Creates a typed client of the control API: paths, bodies and answers are checked against the types
 * generated from `openapi/control/control.yaml`.
 * @example
 * const control = createControlClient({ baseUrl: 'http://localhost:4010', fetch: mock.fetch });
 * await control.POST('/__mock/reset', { body: { seed: 'demo' } });
 * await control.POST('/__mock/clock/advance', { body: { ms: 60_000 } });
 * const worker = createControlClient({ baseUrl: 'http://localhost:4010', session: 'worker-1' });
 * const shared = createControlClient({ baseUrl: 'http://mock.team:4010', token: process.env.RESTOAPI_MOCK_CONTROL_TOKEN });
 */
export function createControlClient(options: ControlClientOptions): ControlClient {
  const headers: Record<string, string> = {
    ...(options.session !== undefined ? { 'X-Mock-Session': options.session } : {}),
    ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
  };
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  });
}
