import { HttpError, badRequest, errorObject } from '../engine/http-error.js';
import type { MockEngine } from '../engine/mock-engine.js';
import { TABLE_NAMES } from '../state/mock-state.js';

/** The request header that names the session a request works on. */
export const SESSION_HEADER = 'X-Mock-Session';

/** The name of the session a request without {@link SESSION_HEADER} works on. */
export const DEFAULT_SESSION = 'default';

/** How many named sessions a mock holds at once unless told otherwise (100 demo sessions take about 5 MB of heap: bench/session-bench.ts). */
export const DEFAULT_MAX_SESSIONS = 100;

/** How long a named session may stay unused before it is dropped, unless told otherwise: 30 minutes. */
export const DEFAULT_SESSION_TTL_MS = 30 * 60 * 1000;

const SESSION_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Whether `name` is a valid session name: 1 to 64 characters of `A-Za-z0-9._-`. */
export function isSessionName(name: string): boolean {
  return SESSION_NAME.test(name);
}

/** Session limits of a mock: `createMock({ sessions })`, `restoapi-mock --max-sessions --session-ttl`. */
export interface SessionOptions {
  /** Named sessions held at once (the default session not counted); a new one beyond it is refused with 429. Default 100. */
  max?: number;
  /** Milliseconds of wall-clock time a named session may stay unused before it is dropped; 0 keeps them. Default 30 minutes. */
  ttlMs?: number;
  /** The wall clock idle times are measured on (tests pass their own). */
  now?: () => number;
}

/** A session as `GET /__mock/sessions` lists it. */
export interface SessionInfo {
  name: string;
  /** When it was created (wall-clock time, ISO 8601). */
  created_at: string;
  /** When a request last used it (wall-clock time, ISO 8601). */
  last_used_at: string;
  /** Number of records in its tables. */
  size: number;
  /** When it expires unless used again; `null` for the default session or without a time to live. */
  expires_at: string | null;
}

interface Entry {
  readonly instance: MockEngine;
  readonly createdAt: number;
  lastUsedAt: number;
}

/** Options of {@link SessionRegistry}. */
export interface SessionRegistryOptions extends SessionOptions {
  /** The instance of requests without the header. */
  defaultInstance: MockEngine;
  /** Builds the instance of a new named session, from the mock's seed. */
  create(name: string): MockEngine;
}

/**
 * The sessions of one mock: the default instance plus one whole instance per named session (its own
 * state, clock, ids, jobs, faults, carriers and callbacks), created on first use and dropped when idle
 * longer than the time to live. It sits in front of the request pipeline and never inside it.
 */
export class SessionRegistry {
  /** The limit on named sessions. */
  readonly max: number;
  /** The time to live of an idle named session in ms (0: none). */
  readonly ttlMs: number;
  readonly #named = new Map<string, Entry>();
  readonly #default: Entry;
  readonly #create: (name: string) => MockEngine;
  readonly #now: () => number;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: SessionRegistryOptions) {
    this.max = checkedCount('max', options.max ?? DEFAULT_MAX_SESSIONS);
    this.ttlMs = checkedCount('ttlMs', options.ttlMs ?? DEFAULT_SESSION_TTL_MS);
    this.#now = options.now ?? Date.now;
    this.#create = options.create;
    const now = this.#now();
    this.#default = { instance: options.defaultInstance, createdAt: now, lastUsedAt: now };
  }

  /** The number of named sessions held now. */
  get size(): number {
    return this.#named.size;
  }

  /**
   * The instance of a session, created on first use. Throws an {@link HttpError}: 400 for a bad name, 429
   * when a new session would pass the limit.
   */
  get(name: string): MockEngine {
    if (name === DEFAULT_SESSION) {
      this.#default.lastUsedAt = this.#now();
      return this.#default.instance;
    }
    if (!isSessionName(name)) throw badSessionName(name);
    this.sweep();
    const now = this.#now();
    let entry = this.#named.get(name);
    if (!entry) {
      if (this.#named.size >= this.max) throw this.#limitReached(now);
      entry = { instance: this.#create(name), createdAt: now, lastUsedAt: now };
      this.#named.set(name, entry);
      this.#arm();
    }
    entry.lastUsedAt = now;
    return entry.instance;
  }

  /** Notes a request of the default session (its `last_used_at`): a request without the header. */
  touchDefault(): void {
    this.#default.lastUsedAt = this.#now();
  }

  /** The session named by a request's header value (`null`: no header, the default session). */
  pick(header: string | null): MockEngine {
    return header === null ? this.get(DEFAULT_SESSION) : this.get(header);
  }

  /** Every session, the default first, then by creation. */
  list(): SessionInfo[] {
    this.sweep();
    return [
      this.#info(DEFAULT_SESSION, this.#default, false),
      ...[...this.#named].map(([name, entry]) => this.#info(name, entry, true)),
    ];
  }

  /** Drops a named session and closes its instance; `false` when there is none of that name. */
  drop(name: string): boolean {
    const entry = this.#named.get(name);
    if (!entry) return false;
    this.#named.delete(name);
    entry.instance.close();
    if (this.#named.size === 0) this.#disarm();
    return true;
  }

  /** Drops every named session idle for longer than the time to live. */
  sweep(): void {
    if (this.ttlMs === 0) return;
    const now = this.#now();
    for (const [name, entry] of this.#named) if (now - entry.lastUsedAt > this.ttlMs) this.drop(name);
  }

  /** Closes every named session (the default instance is closed by its owner). */
  close(): void {
    for (const name of [...this.#named.keys()]) this.drop(name);
    this.#disarm();
  }

  #info(name: string, entry: Entry, expires: boolean): SessionInfo {
    let size = 0;
    for (const table of TABLE_NAMES) size += entry.instance.runtime.state[table].size;
    return {
      name,
      created_at: new Date(entry.createdAt).toISOString(),
      last_used_at: new Date(entry.lastUsedAt).toISOString(),
      size,
      expires_at: expires && this.ttlMs > 0 ? new Date(entry.lastUsedAt + this.ttlMs).toISOString() : null,
    };
  }

  #limitReached(now: number): HttpError {
    // With a time to live, the least recently used session frees a place when it expires.
    let oldest = Number.POSITIVE_INFINITY;
    for (const entry of this.#named.values()) oldest = Math.min(oldest, entry.lastUsedAt);
    const retryAfter =
      this.ttlMs > 0 && Number.isFinite(oldest)
        ? { 'Retry-After': String(Math.max(1, Math.ceil((oldest + this.ttlMs - now) / 1000))) }
        : undefined;
    return new HttpError(
      429,
      [
        errorObject(
          429,
          'session_limit_reached',
          'Too many sessions',
          `This mock holds at most ${this.max} named sessions (--max-sessions ${this.max}) and all are in use; ` +
            'drop one with DELETE /__mock/sessions/{name}, let idle ones expire (--session-ttl) or start the mock with a higher --max-sessions.',
          { header: SESSION_HEADER },
        ),
      ],
      retryAfter,
    );
  }

  // Idle sessions are also swept on every named request; the timer covers a mock nobody calls any more.
  #arm(): void {
    if (this.#sweeper || this.ttlMs === 0) return;
    this.#sweeper = setInterval(() => this.sweep(), Math.min(Math.max(this.ttlMs / 2, 1000), 60_000));
    (this.#sweeper as { unref?: () => void }).unref?.();
  }

  #disarm(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}

/** The 400 answer to a session name that is not 1 to 64 characters of `A-Za-z0-9._-`. */
export function badSessionName(name: string): HttpError {
  return badRequest(
    'invalid_session',
    `${SESSION_HEADER} must be 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" and "-"; got ${JSON.stringify(name.slice(0, 80))}.`,
    { header: SESSION_HEADER },
  );
}

function checkedCount(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 0)
    throw new RangeError(`sessions.${option} must be a whole number, 0 or more; got ${String(value)}`);
  return value;
}
