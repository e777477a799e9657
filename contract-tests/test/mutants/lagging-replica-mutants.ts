/**
 * Sequence faults of a second family: read-your-writes stickiness that lasts
 * only one read. Each wraps the correct mock with a read replica that gets
 * writes one change late. After a write, the first read of each view is
 * pinned to the primary, so it shows the write. Later reads, with no write in
 * between, come from the replica, which shows what the last write changed as
 * it was before. Every write command of a machine reads all views back right
 * after it and sees them fresh; only a standalone read command that reads a
 * view again sees the old state. Each mutant lags the views of one read
 * command, so that command is the last of the shrunk sequence.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import { stateful, type Handle, type Mutant } from './mutants.js';
import { accountOf, authOnly, patched } from './stale-view-mutants.js';

interface Answer {
  status: number;
  body: string;
  headers: [string, string][];
}

interface View {
  /** The URL and headers to read it again with the same session (for the replica's copy at the next write). */
  url: string;
  headers: [string, string][];
  /** The views whose pin a read of this URL releases (one URL, or all pages of a list). */
  group: string;
  /** The answer as the replica has it, from before the last write that changed it; none while it is current. */
  replica?: Answer;
}

interface Replica {
  /** The lagged URLs read so far (or written), per session and URL: the replica copies only these. */
  views: Map<string, View>;
  /** Lagged writes so far (refused ones too: the router pins the session without looking at the answer). */
  writes: number;
  /** Per group, the number of writes its last read from the primary came after: older means pinned. */
  fresh: Map<string, number>;
  /** Records mode: each record changed so far, as it was before its last change (null: created by it). */
  rows: Map<unknown, any>;
  /** Records mode: the headers of the last read of a lagged view (the session to read `source` with). */
  reader?: [string, string][];
}

interface ReplicaOptions {
  /** The group of a GET that reads a lagged view (usually its URL), or undefined for any other read. */
  view(request: Request, url: URL, handle: Handle): string | undefined | Promise<string | undefined>;
  /** The writes the replica gets late (default: every change through the API but logins and logouts). */
  lags?(request: Request, url: URL): boolean;
  /** Whether another successful write brings the replica up to date (default: yes; a control call, a login). */
  catchesUp?(request: Request, url: URL): boolean;
  /** A primary answer that keeps the pin (a job still running): the pin ends with the first answer without it. */
  keepsPin?(body: any): boolean;
  /**
   * Records mode, for lists read with any page size, filter or page: the replica keeps records, not answers. Each
   * record a write changes (read from `source` before and after it) is listed as it was before; one it created is
   * left out. Every URL of the view is answered from it, also one never read before.
   */
  records?: { key: string; source: string };
}

const isApiChange = (_request: Request, url: URL): boolean =>
  url.pathname !== '/api/session' && !url.pathname.startsWith('/__mock/');

async function answerOf(response: Response): Promise<Answer> {
  return { status: response.status, body: await response.text(), headers: [...response.headers] };
}

function responseOf(answer: Answer): Response {
  return new Response(answer.body === '' ? null : answer.body, { status: answer.status, headers: answer.headers });
}

/** Every lagged URL known so far, read again from the primary. */
async function readAll(handle: Handle, state: Replica): Promise<Map<string, Answer>> {
  const answers = new Map<string, Answer>();
  for (const [key, view] of state.views)
    answers.set(key, await answerOf(await handle(new Request(view.url, { headers: view.headers }))));
  return answers;
}

/** Records mode: the records of `source` by id, as JSON text. */
async function rowsOf(
  handle: Handle,
  records: NonNullable<ReplicaOptions['records']>,
  base: URL,
  headers: [string, string][],
): Promise<Map<unknown, string>> {
  const response = await handle(new Request(new URL(records.source, base), { headers }));
  const body = response.ok ? ((await response.json()) as any) : {};
  return new Map(((body[records.key] ?? []) as any[]).map((row) => [row.id, JSON.stringify(row)]));
}

/**
 * The header that marks a replica's own reads of the primary (the copies it takes around a write, the session it
 * looks up). Another lagging replica passes them straight through: stacked (run-mutant.ts), one mutant's reads of
 * the primary neither release another's pin nor get its stale copy, so the stack lags no view more than its
 * mutants do alone.
 */
const PRIMARY_READ = 'x-mutant-primary-read';

/** The handle a replica reads the primary with: its requests marked {@link PRIMARY_READ}. */
function primaryOf(handle: Handle): Handle {
  return (request) => {
    const headers = new Headers(request.headers);
    headers.set(PRIMARY_READ, '1');
    return handle(new Request(request, { headers }));
  };
}

const sameAnswer = (a: Answer | undefined, b: Answer | undefined): boolean =>
  a?.status === b?.status && a?.body === b?.body;

/** The session and URL of a read: the key of the replica's copy and, by default, its group. */
function urlOf(request: Request, url: URL): string {
  return `${request.headers.get('authorization') ?? ''} ${url.pathname}${url.search}`;
}

/**
 * A read replica in front of the correct mock that gets each lagged write one change late, and read-your-writes
 * stickiness that lasts one read: after a write, the first read of each view goes to the primary, later ones to
 * the replica, which shows what the last write changed as it was before.
 */
function laggingReplica(options: ReplicaOptions): (handle: Handle) => Handle {
  const lags = options.lags ?? isApiChange;
  const catchesUp = options.catchesUp ?? (() => true);
  const { records } = options;
  return stateful(
    (): Replica => ({ views: new Map(), writes: 0, fresh: new Map(), rows: new Map() }),
    (handle, state) => {
      const primary = primaryOf(handle);
      return async (request) => {
        const url = new URL(request.url);
        if (request.headers.has(PRIMARY_READ)) return handle(request);
        if (request.method === 'GET') {
          const group = await options.view(request, url, primary);
          if (group === undefined) return handle(request);
          const key = urlOf(request, url);
          const known = state.views.get(key);
          const pinned = (state.fresh.get(group) ?? -1) < state.writes;
          if (!pinned && records && state.rows.size > 0)
            return patched(handle, request, (body) => ({
              ...body,
              [records.key]: (body[records.key] as any[])
                .filter((row) => state.rows.get(row.id) !== null)
                .map((row) => state.rows.get(row.id) ?? row),
            }));
          if (!pinned && known?.replica) return responseOf(known.replica);
          const response = await handle(request);
          if (records) state.reader = [...authOnly(request)];
          else state.views.set(key, { url: request.url, headers: [...request.headers], group, ...known });
          const body = options.keepsPin
            ? await response
                .clone()
                .json()
                .catch(() => undefined)
            : undefined;
          if (!options.keepsPin?.(body)) state.fresh.set(group, state.writes);
          return response;
        }
        if (request.method === 'HEAD' || request.method === 'OPTIONS') return handle(request);
        if (!lags(request, url)) {
          const response = await handle(request);
          if (response.ok && catchesUp(request, url)) {
            for (const view of state.views.values()) delete view.replica;
            state.rows.clear();
          }
          return response;
        }
        state.writes += 1;
        if (records) {
          const reader = state.reader ?? [...authOnly(request)];
          const before = await rowsOf(primary, records, url, reader);
          const response = await handle(request);
          const after = await rowsOf(primary, records, url, reader);
          for (const id of new Set([...before.keys(), ...after.keys()]))
            if (response.ok && before.get(id) !== after.get(id))
              state.rows.set(id, before.has(id) ? JSON.parse(before.get(id)!) : null);
          return response;
        }
        // The record a PUT writes is copied too, read or not: its read by id is a view the replica has.
        const own = new Request(url, { headers: authOnly(request) });
        const ownGroup = request.method === 'PUT' ? await options.view(own, url, primary) : undefined;
        if (ownGroup !== undefined && !state.views.has(urlOf(own, url)))
          state.views.set(urlOf(own, url), { url: own.url, headers: [...own.headers], group: ownGroup });
        const before = await readAll(primary, state);
        const response = await handle(request);
        const after = await readAll(primary, state);
        // Only what a successful write changed (a refused one changes nothing, even if a job ended meanwhile).
        for (const [key, view] of state.views)
          if (response.ok && !sameAnswer(before.get(key), after.get(key))) view.replica = before.get(key);
        return response;
      };
    },
  );
}

/** A replica of the GETs whose path matches `pattern` (and `query`, when given), one group per URL. */
function paths(pattern: RegExp, query: (params: URLSearchParams) => boolean = () => true): ReplicaOptions['view'] {
  return (request, url) => (pattern.test(url.pathname) && query(url.searchParams) ? urlOf(request, url) : undefined);
}

const ORDER_LIST = /^\/(?:api\/)?orders$/;
const ORDER_VIEWS = /^\/(?:api\/)?orders\/\d+(?:\/receipt\.html)?$/;
/** The orders a staff member lists: the records a list replica copies. */
const ORDER_RECORDS = { key: 'orders', source: '/api/orders?per_page=100' };
const CARRIER_VIEW = /^\/api-delivery\/orders\/[^/]+$/;
const DISH_LIST = /^\/api\/draft_dishes\/?$/;
const CATEGORY_LIST = /^\/api\/draft_categories\/?$/;
const recordWrite = (_request: Request, url: URL): boolean =>
  /^\/api\/(?:organizations|restaurants)\/\d+$/.test(url.pathname);
const dishWrite = (request: Request, url: URL): boolean =>
  /^\/api\/draft_dishes\/\d+$/.test(url.pathname) && (request.method === 'PUT' || request.method === 'DELETE');
const jobRunning = (state: any): boolean =>
  state?.status === 'busy' || state?.job_status === 'queued' || state?.job_status === 'working';

/** The import state of `kind` lags its job: read from the primary until the job is over, then from the replica. */
function importState(kind: 'menu' | 'clients'): ReplicaOptions {
  const path = new RegExp(`^/api/organizations/\\d+/import/${kind}$`);
  return {
    view: paths(path),
    lags: (request, url) => request.method === 'POST' && path.test(url.pathname),
    // The job's clock moves through the control API: that is not a write the replica gets.
    catchesUp: () => false,
    keepsPin: jobRunning,
  };
}

/** The lagging-replica mutants: each names the stateful test, and the read command of it, that kills it. */
export const LAGGING_REPLICA_MUTANTS: Mutant[] = (
  [
    {
      id: 'organization-reads-lag-one-write',
      description:
        'the organization by id and the list of organizations: after a write only the first read is fresh, later reads show the organization as it was before the last write',
      killedBy: 'stateful.records',
      wrap: laggingReplica({ view: paths(/^\/api\/organizations(?:\/\d+)?$/) }),
    },
    {
      id: 'restaurant-reads-lag-one-write',
      description:
        'the restaurants (by id, the list, the list filtered by organization_id): after a write only the first read of each is fresh',
      killedBy: 'stateful.records',
      wrap: laggingReplica({ view: paths(/^\/api\/restaurants(?:\/\d+)?$/) }),
    },
    {
      id: 'order-sideload-lags-restaurant-update',
      description:
        'an order by id (its `restaurants` sideload) and its receipt: after an organization or restaurant update only the first read is fresh, later reads show the restaurant as it was before',
      killedBy: 'stateful.records',
      wrap: laggingReplica({ view: paths(ORDER_VIEWS), lags: recordWrite }),
    },
    {
      id: 'carrier-view-lags-restaurant-update',
      description:
        "the carrier view's restaurant block: after an organization or restaurant update only the first read is fresh",
      killedBy: 'stateful.records',
      wrap: laggingReplica({ view: paths(CARRIER_VIEW), lags: recordWrite }),
    },
    {
      id: 'dish-by-id-lags-one-write',
      description:
        'GET /api/draft_dishes/{id}: after a write only the first read is fresh, later reads show the dish as before the write',
      killedBy: 'stateful.menu',
      wrap: laggingReplica({ view: paths(/^\/api\/draft_dishes\/\d+$/) }),
    },
    {
      id: 'dish-category-filter-lags-one-write',
      description:
        'the draft dishes listed with draft_category_id: after a write only the first read of each filter is fresh',
      killedBy: 'stateful.menu',
      wrap: laggingReplica({ view: paths(DISH_LIST, (q) => q.has('draft_category_id')) }),
    },
    {
      id: 'dish-list-lags-one-write',
      description:
        'the list of draft dishes (no filter but the organization): after a write only the first read is fresh',
      killedBy: 'stateful.menu',
      wrap: laggingReplica({ view: paths(DISH_LIST, (q) => !q.has('draft_category_id')) }),
    },
    {
      id: 'category-list-lags-one-write',
      description: 'the list of draft categories: after a write only the first read is fresh',
      killedBy: 'stateful.menu',
      wrap: laggingReplica({ view: paths(CATEGORY_LIST) }),
    },
    {
      id: 'storefront-lags-one-write',
      description:
        'the storefront (the published menu): after a publication only the first read shows it, later reads show the menu published before',
      killedBy: 'stateful.menu',
      wrap: laggingReplica({ view: paths(/^\/__mock\/organizations\/\d+\/menu$/) }),
    },
    {
      id: 'order-by-id-lags-one-write',
      description:
        'GET /api/orders/{id}: after a write only the first read is fresh, later reads show the order as before the write',
      killedBy: 'stateful.orders',
      wrap: laggingReplica({ view: paths(/^\/(?:api\/)?orders\/\d+$/) }),
    },
    {
      id: 'courier-filter-lags-one-write',
      description: 'the orders listed with courier_id: after a write only the first read is fresh',
      killedBy: 'stateful.orders',
      wrap: laggingReplica({ view: paths(ORDER_LIST, (q) => q.has('courier_id')) }),
    },
    {
      id: 'courier-list-lags-one-write',
      description: "the courier's own list of orders: after a write only the first read is fresh",
      killedBy: 'stateful.orders',
      wrap: laggingReplica({
        view: async (request, url, handle) =>
          ORDER_LIST.test(url.pathname) && (await accountOf(handle, request, url))?.type === 'courier'
            ? urlOf(request, url)
            : undefined,
      }),
    },
    {
      id: 'order-list-pages-lag-one-write',
      description:
        "a staff member's list of orders, any page size and status filter: after a write only the first read of the list is fresh, later reads list each order a write changed as it was before",
      killedBy: 'stateful.orders',
      wrap: laggingReplica({
        view: async (request, url, handle) => {
          if (!ORDER_LIST.test(url.pathname)) return undefined;
          if (['courier_id', 'client_id', 'restaurant_id'].some((key) => url.searchParams.has(key))) return undefined;
          const account = await accountOf(handle, request, url);
          // One group for the whole list: the first read after a write releases the pin of every page.
          return account && account.type !== 'courier' ? `${request.headers.get('authorization')} orders` : undefined;
        },
        records: ORDER_RECORDS,
      }),
    },
    {
      id: 'carrier-view-lags-order-write',
      description: 'the carrier view of an order: after a write (a delivery update, say) only the first read is fresh',
      killedBy: 'stateful.orders',
      wrap: laggingReplica({ view: paths(CARRIER_VIEW) }),
    },
    {
      id: 'zone-by-id-lags-one-write',
      description: 'GET /api/delivery_zones/{id}: after a write only the first read is fresh',
      killedBy: 'stateful.zones',
      wrap: laggingReplica({ view: paths(/^\/api\/delivery_zones\/\d+$/) }),
    },
    {
      id: 'zone-list-lags-one-write',
      description: 'the list of delivery zones: after a write only the first read is fresh',
      killedBy: 'stateful.zones',
      wrap: laggingReplica({ view: paths(/^\/api\/delivery_zones\/?$/) }),
    },
    {
      id: 'menu-import-state-lags-its-job',
      description:
        "the menu import state: read from the primary until the job is over, then from a replica that still shows the state before the import started (the previous job's id)",
      killedBy: 'stateful.imports',
      wrap: laggingReplica(importState('menu')),
    },
    {
      id: 'imported-menu-lags-dish-update',
      description:
        'the lists of draft dishes and categories: after a dish update or delete only the first read is fresh (an import brings the replica up to date)',
      killedBy: 'stateful.imports',
      wrap: laggingReplica({
        view: paths(/^\/api\/draft_(?:dishes|categories)\/?$/),
        lags: dishWrite,
      }),
    },
    {
      id: 'client-filter-lags-one-write',
      description:
        'the orders listed with client_id: after a write (an order import) only the first read of each is fresh, later reads leave out the orders the last import created',
      killedBy: 'stateful.imports',
      wrap: laggingReplica({ view: paths(ORDER_LIST, (q) => q.has('client_id')), records: ORDER_RECORDS }),
    },
    {
      id: 'client-import-state-lags-its-job',
      description:
        'the client import state: read from the primary until the job is over, then from a replica that still shows the state before the import started',
      killedBy: 'stateful.imports',
      wrap: laggingReplica(importState('clients')),
    },
    {
      id: 'logout-reaches-replica-late',
      description:
        'a logout reaches the session replica one write late: the first use of the ended session is refused, later uses are answered as if it were live',
      killedBy: 'stateful.sessions',
      wrap: laggingReplica({
        view: paths(/^\/api\/(?:session|organizations)$/),
        lags: (request, url) => request.method === 'DELETE' && url.pathname === '/api/session',
        catchesUp: () => false,
      }),
    },
  ] as Omit<Mutant, 'selection' | 'sequenceOnly'>[]
).map((mutant) => ({ ...mutant, selection: 'stateful', sequenceOnly: true }));
