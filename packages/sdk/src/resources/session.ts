import type { DefaultOptions, MainCall, MainCore } from '../transport/core.js';
import type { RequestOptions } from '../transport/options.js';
import type { TokenStore } from '../transport/token.js';

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const formBody = (body: Record<string, string | undefined> | undefined): URLSearchParams =>
  new URLSearchParams(Object.entries(body ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined));

/** The answer of `GET /api/session` as it came: its shape is "not shown" by the spec (`undefined` for an empty body). */
export type SessionState = unknown;

/**
 * Sessions: sign in (the token is kept and sent with every later call), read the session, sign out.
 * @example
 * const { api_user } = await api.session.login('admin@pizza.demo', 'demo');
 */
export class SessionResource {
  readonly #core: MainCore;
  readonly #store: TokenStore;

  constructor(core: MainCore, store: TokenStore) {
    this.#core = core;
    this.#store = store;
  }

  /** Signs in with login and password (sent as a form body, never in the URL) and stores the token. */
  login<O extends RequestOptions = DefaultOptions>(
    login: string,
    password: string,
    options?: O,
  ): MainCall<O, 'POST /api/session'> {
    return this.#create({ login, password }, options);
  }

  /** Signs in with an API key instead of login and password, and stores the token. */
  loginWithApiKey<O extends RequestOptions = DefaultOptions>(
    apiKey: string,
    options?: O,
  ): MainCall<O, 'POST /api/session'> {
    return this.#create({ api_key: apiKey }, options);
  }

  #create<O extends RequestOptions>(
    credentials: { login?: string; password?: string; api_key?: string },
    options: O | undefined,
  ): MainCall<O, 'POST /api/session'> {
    const core = this.#core;
    return core.invoke('POST /api/session', { body: credentials, bodySerializer: formBody, headers: FORM }, options, {
      map: async (data) => {
        await this.#store.set(data.meta.token);
        return data;
      },
    });
  }

  /**
   * Reads the current session: resolves while the token is valid (an ended one rejects with
   * `AuthenticationError`). The spec leaves the answer's shape open, so it is the service's body as it came
   * ({@link SessionState}: narrow it before use); `api.raw.GET('/api/session')` gives our document's shape.
   */
  get<O extends RequestOptions = DefaultOptions>(options?: O): MainCall<O, 'GET /api/session', SessionState> {
    const core = this.#core;
    return core.invoke('GET /api/session', {}, options, { after: (answer): SessionState => answer });
  }

  /** Ends the session and forgets the token (also when the service says it had already ended: 401). */
  logout<O extends RequestOptions = DefaultOptions>(options?: O): MainCall<O, 'DELETE /api/session'> {
    const core = this.#core;
    return core.invoke('DELETE /api/session', {}, options, {
      map: async () => {
        await this.#store.set(null);
        return undefined;
      },
      onError: async (error) => {
        if (error.status === 401) await this.#store.set(null);
      },
    });
  }

  /** The token calls are sent with now (from `login()` or the `token` option). */
  async token(): Promise<string | undefined> {
    return (await this.#store.get()) ?? undefined;
  }
}
