/**
 * The one smoke script every runtime runs (Node, Chromium, workerd, Bun): the SDK against the stateful
 * mock over loopback. Runtime-neutral on purpose: nothing but `fetch`, web globals and the SDK, so the
 * same bundle runs everywhere; each step throws with what it saw, and the report lists the steps passed.
 */
import { NotFoundError, createRestoClient } from '@restoapi/sdk';

/** What a runtime reports back. */
export interface SmokeReport {
  ok: boolean;
  /** Steps that passed, in order. */
  steps: string[];
  /** The first failure, when `ok` is false. */
  error?: string;
  /** What the runtime calls itself (`navigator.userAgent`, else `Node.js/<version>`). */
  runtime: string;
}

/** The steps, in order; a test checks a runtime passed them all. */
export const SMOKE_STEPS = [
  'login',
  'list orders',
  'iterate orders',
  'typed error',
  'retry after 503',
  'create dish',
  'upload photo',
] as const;

/** The smallest valid PNG (1×1, transparent). */
const TINY_PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(what);
}

function runtimeName(): string {
  const { navigator, process } = globalThis as {
    navigator?: { userAgent?: string };
    process?: { versions?: { node?: string } };
  };
  // Node 20 has no navigator (21 added it); Bun and workerd have both or only navigator.
  return navigator?.userAgent ?? (process?.versions?.node ? `Node.js/${process.versions.node}` : 'unknown');
}

/** Runs every step against the mock at `baseUrl` (a fresh demo world); never throws. */
export async function runSdkSmoke(baseUrl: string): Promise<SmokeReport> {
  const steps: string[] = [];
  const step = async (name: (typeof SMOKE_STEPS)[number], run: () => Promise<void>): Promise<void> => {
    try {
      await run();
    } catch (error) {
      throw new Error(`${name}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    }
    steps.push(name);
  };
  const retries: string[] = [];
  const waits: number[] = [];
  const api = createRestoClient({
    baseUrl,
    logger: { debug() {}, info() {}, warn: (message: string) => retries.push(message), error() {} },
    // Record the waits instead of sleeping through them: Retry-After is what is being checked.
    sleep: async (ms: number) => void waits.push(ms),
  });
  try {
    await step('login', async () => {
      const { api_user } = await api.session.login('admin@pizza.demo', 'demo');
      check(api_user.name, 'no api_user in the answer');
      check(await api.session.token(), 'no token kept');
    });
    let count = 0;
    await step('list orders', async () => {
      const { orders, meta } = await api.orders.list({ restaurant_id: [11, 12], per_page: 2 });
      check(orders.length === 2, `expected 2 orders on the first page, got ${orders.length}`);
      check(meta.count > 2, `expected more than one page, meta.count is ${meta.count}`);
      count = meta.count;
    });
    await step('iterate orders', async () => {
      const ids = new Set<number>();
      for await (const order of api.orders.iterate({ restaurant_id: [11, 12], per_page: 2 })) ids.add(order.id);
      check(ids.size === count, `iterated ${ids.size} distinct orders, meta.count said ${count}`);
    });
    await step('typed error', async () => {
      const error = await api.orders.get(999_999).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      check(error instanceof NotFoundError, `expected a NotFoundError, got ${String(error)}`);
      check(error.status === 404 && error.errors[0]?.code, `unexpected error body ${JSON.stringify(error.errors)}`);
      check(error.requestId?.startsWith('req_'), `X-Request-Id not readable: ${String(error.requestId)}`);
    });
    await step('retry after 503', async () => {
      const armed = await fetch(`${baseUrl}/__mock/faults`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ method: 'GET', path: '/api/orders/5001', status: 503, count: 1, retryAfter: 2 }),
      });
      check(armed.status === 201, `could not inject the fault: ${armed.status}`);
      const { order } = await api.orders.get(5001);
      check(order.id === 5001, 'wrong order');
      check(retries.length === 1, `expected one retry, saw ${JSON.stringify(retries)}`);
      // 2000 ms only when the answer's Retry-After was readable (a browser needs it exposed by CORS).
      check(waits[0] === 2000, `expected to wait 2000 ms as Retry-After said, waited ${String(waits[0])}`);
    });
    let dishId = 0;
    await step('create dish', async () => {
      const { draft_dish } = await api.draftDishes.create({
        name: 'Runtime Tiramisu',
        price: '6.50',
        draft_category_id: 1001,
        organization_id: 1,
      });
      check(draft_dish.name === 'Runtime Tiramisu', 'the dish was not created as sent');
      dishId = draft_dish.id;
    });
    await step('upload photo', async () => {
      const { draft_dish } = await api.draftDishes.uploadPhoto(dishId, TINY_PNG, { filename: 'tiramisu.png' });
      const url = draft_dish.photo?.original;
      check(url, 'no photo URL after the upload');
      const photo = await fetch(new URL(url, baseUrl));
      const bytes = new Uint8Array(await photo.arrayBuffer());
      check(photo.status === 200 && bytes.length === TINY_PNG.length, `photo not served back (${photo.status})`);
    });
    return { ok: true, steps, runtime: runtimeName() };
  } catch (error) {
    return { ok: false, steps, error: (error as Error).message, runtime: runtimeName() };
  }
}
