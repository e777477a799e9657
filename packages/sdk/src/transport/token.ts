/** Where the session token lives: plug in your own storage (cookie, secure storage, a database). */
export interface TokenStore {
  /** The current token, or nothing when signed out. */
  get(): string | null | undefined | Promise<string | null | undefined>;
  /** Stores the token after `session.login()`, or `null` after `session.logout()`. */
  set(token: string | null): void | Promise<void>;
}

/** A token, a function that supplies one (read before every request), or a {@link TokenStore}. */
export type TokenOption = string | (() => string | null | undefined | Promise<string | null | undefined>) | TokenStore;

/**
 * The store behind a client's `token` option. A plain supplier cannot be written to, so a token from
 * `session.login()` is kept in memory and wins over it until `session.logout()`.
 */
export function toTokenStore(option: TokenOption | undefined): TokenStore {
  if (option && typeof option === 'object') return option;
  let stored: string | null | undefined = typeof option === 'string' ? option : undefined;
  let loggedOut = false;
  const supplier = typeof option === 'function' ? option : undefined;
  return {
    get: () => (stored ? stored : loggedOut || !supplier ? stored : supplier()),
    set(token) {
      stored = token;
      loggedOut = token === null;
    },
  };
}
