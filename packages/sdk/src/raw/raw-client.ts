import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { paths as CarrierPaths } from '../generated/carrier.js';
import type { paths as MainPaths } from '../generated/main.js';
import { authorizeRequest } from '../transport/transport.js';

export { authorizationHeader } from '../transport/transport.js';

/** The typed openapi-fetch client of the main API. */
export type RawMainClient = Client<MainPaths>;
/** The typed openapi-fetch client of the carrier API (`{base_url}/api-delivery`). */
export type RawCarrierClient = Client<CarrierPaths>;

/** A session token, or a function that supplies one (for tokens kept in the caller's own storage). */
export type TokenSupplier =
  string | null | undefined | (() => string | null | undefined | Promise<string | null | undefined>);

/** Options of {@link createRawClient}. */
export interface RawClientOptions {
  /** Base address of the service, e.g. `https://api.example.com` (no trailing slash needed). */
  baseUrl: string;
  /** Session token from `POST /api/session`, or a supplier of it. */
  token?: TokenSupplier;
  /** Send the token as the `token` query parameter instead of the `Authorization` header. */
  tokenIn?: 'header' | 'query';
  /** A `fetch` to use instead of the global one (tests route calls in-process with it). */
  fetch?: ClientOptions['fetch'];
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

/** Middleware that adds the session token to each request, read afresh every time (as the clients' transport does). */
export function tokenMiddleware(token: TokenSupplier, tokenIn: 'header' | 'query' = 'header'): Middleware {
  return {
    async onRequest({ request }) {
      const value = typeof token === 'function' ? await token() : token;
      return value ? authorizeRequest(request, value, tokenIn) : undefined;
    },
  };
}

function trimBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

/**
 * Creates the raw typed client of the main API: every path, parameter and body
 * is checked against the generated types.
 * @example
 * const api = createRawClient({ baseUrl: 'http://localhost:4010', token });
 * const { data } = await api.GET('/api/orders/{id}', { params: { path: { id: 5001 } } });
 */
export function createRawClient(options: RawClientOptions): RawMainClient {
  const client = createClient<MainPaths>({
    baseUrl: trimBase(options.baseUrl),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  if (options.token !== undefined) client.use(tokenMiddleware(options.token, options.tokenIn));
  return client;
}

/** Options of {@link createRawCarrierClient}. */
export interface RawCarrierClientOptions {
  /** Base address of the service (`{base_url}`); `/api-delivery` is appended unless already there. */
  baseUrl: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: ClientOptions['fetch'];
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

/** Base address of the carrier API for a service base address. */
export function carrierBaseUrl(baseUrl: string): string {
  const base = trimBase(baseUrl);
  return base.endsWith('/api-delivery') ? base : `${base}/api-delivery`;
}

/**
 * Creates the raw typed client of the carrier API; orders are addressed by `secure_id`, no session is needed.
 * @example
 * const carrier = createRawCarrierClient({ baseUrl: 'http://localhost:4010' });
 * await carrier.GET('/orders/{secure_id}', { params: { path: { secure_id } } });
 */
export function createRawCarrierClient(options: RawCarrierClientOptions): RawCarrierClient {
  return createClient<CarrierPaths>({
    baseUrl: carrierBaseUrl(options.baseUrl),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
}
