import type { MeterProvider } from '@opentelemetry/api';
import { createCarrierAgent, type CarrierAgent } from '../agent/carrier-agent.js';
import type { Logger } from '../observability/logger.js';
import { createFileOutboxStore } from '../outbox/file-outbox-store.js';
import type { ReplicaStores } from '../postgres/replica-stores.js';
import { callbackKey } from '../receiver/callback-event.js';
import { serve, type ServedReceiver } from '../receiver/node-adapter.js';
import type { CourierInfo, DeliveryTracker } from '../tracker/delivery-tracker.js';
import { simulateCourier, type CourierProgress } from './courier-simulator.js';
import { createDeliveryJournal, type DeliveryJournal } from './delivery-journal.js';
import { createMockControl, type CarrierChaos, type MockControl, type RegisteredCarrier } from './mock-control.js';
import { ProgressView, formatProgress, type ProgressOutput } from './progress-view.js';

/** Options of {@link runSimulator}. */
export interface SimulatorOptions {
  /** Base address of the service (the mock), `{base_url}`. */
  baseUrl: string;
  /** Base address of the mock's control API (default: `baseUrl`). */
  controlUrl?: string;
  /** The mock's control token, when it was started with one (`restoapi-mock --control-token`). */
  controlToken?: string;
  /** Port of the callback receiver (default 0: a free one). */
  port?: number;
  /** Interface the receiver listens on (default `127.0.0.1`). */
  host?: string;
  /**
   * The callback URL to register when the mock reaches the receiver under another address (e.g. in Docker,
   * or a balancer's); the receiver serves its path (default: the receiver's own URL, path `/callbacks`).
   */
  publicUrl?: string;
  /** Courier speed in km/h (default 25). */
  speedKmh?: number;
  /** Time between two position reports in ms (default 1000). */
  tickMs?: number;
  /** Minimum time between two position updates sent per order (default 10 s). */
  minIntervalMs?: number;
  /** Share of orders whose courier reports a problem on the way, 0 to 1 (default 0). */
  problemRate?: number;
  /** How long a courier is stuck after a problem, in ms (default 5 s). */
  problemPauseMs?: number;
  /** Register with chaos options so the mock duplicates, delays and reorders callbacks. */
  chaos?: boolean | CarrierChaos;
  /** Seed of the simulator's and the chaos's chance decisions (default 1). */
  seed?: number;
  /** Restaurants served (default: every restaurant). */
  restaurantIds?: number[] | null;
  /** Register a Standard Webhooks secret and verify the mock's signatures. */
  secret?: string;
  /** Keep pending updates in this file (atomic writes) instead of memory. */
  outboxFile?: string;
  /**
   * A PostgreSQL connection string: run as one replica of several sharing this database. The outbox,
   * the callback dedupe and the deliveries are shared; the carrier is registered once for `publicUrl`
   * (the balancer's address) and later replicas join it. Needs the `pg` package.
   */
  store?: string;
  /** With `store`: how long after a replica died the others take its deliveries and updates (default 10 s). */
  leaseMs?: number;
  /**
   * The mock server session to run in (`X-Mock-Session`): the carrier registers there, gets that session's
   * callbacks and sends its updates back to it.
   */
  mockSession?: string;
  /** Name of the carrier in the mock's lists (default `Simulated carrier`). */
  name?: string;
  /** How long {@link RunningSimulator.stop} waits for the service to take the abandoned orders' problems (default 5 s). */
  stopTimeoutMs?: number;
  /** Where the agent's OpenTelemetry metrics go (default: the global provider; see `startPrometheus`). */
  meterProvider?: MeterProvider;
  /** Where live progress goes (default `process.stdout`). */
  output?: ProgressOutput;
  /** Redraw progress in place (default: whether the output is a terminal). */
  tty?: boolean;
  logger?: Logger;
}

/** Counters of a simulator run. */
export interface SimulatorStats {
  orders: number;
  delivered: number;
  cancelled: number;
  failed: number;
  problems: number;
  /** Orders still under way when the simulator stopped: reported to the service as `problem`. */
  abandoned: number;
}

/** A running simulator. */
export interface RunningSimulator {
  agent: CarrierAgent;
  served: ServedReceiver;
  /** The id the mock gave the carrier. */
  carrierId: number;
  /** The registered callback URL. */
  callbackUrl: string;
  readonly stats: Readonly<SimulatorStats>;
  /** Resolves with the final phase of an order's simulated delivery, once it ends. */
  finished(orderId: number): Promise<CourierProgress['phase']>;
  /**
   * Stops the couriers, reports each delivery still under way as `problem` (the courier was recalled) and
   * waits for the service to take those updates, then unregisters the carrier and stops the receiver.
   */
  stop(): Promise<void>;
}

const COURIERS: [string, string][] = [
  ['Tom Richter', '+49 160 9876543'],
  ['Lea Neumann', '+49 160 2223344'],
  ['Can Yilmaz', '+49 176 5550101'],
  ['Marta Nowak', '+49 157 3141592'],
  ['Ola Berg', '+49 151 2718281'],
];

const PROBLEMS = [
  'Road closed, taking a detour.',
  'Flat tyre, switching bikes.',
  'Client not answering the door.',
  'Stuck behind a tram.',
];

/** What an order whose courier was recalled by a stop shows on the service. */
export const ABANDONED_MESSAGE = 'The simulated carrier stopped; the courier was recalled and nobody is delivering.';

/** Whether two carriers' restaurant lists (`null`: every restaurant) share a restaurant. */
function overlap(a: number[] | null, b: number[] | null): boolean {
  if (a === null) return b === null || b.length > 0;
  return b === null ? a.length > 0 : a.some((id) => b.includes(id));
}

/** The line that tells why this carrier will not get the orders an earlier carrier takes, if any. */
function shadowedBy(earlier: RegisteredCarrier[], restaurantIds: number[] | null): string | undefined {
  const first = earlier.find((carrier) => overlap(carrier.restaurant_ids, restaurantIds));
  if (!first) return undefined;
  return (
    `warning: carrier ${first.id} "${first.name}" registered earlier serves ${first.restaurant_ids === null ? 'every restaurant' : `restaurants ${first.restaurant_ids.join(', ')}`}; ` +
    'the mock hands each order to the first registered carrier serving its restaurant, so this one gets none of those orders ' +
    '(run the demo with `npm start -- --no-carrier`, or remove that carrier with DELETE /__mock/carriers/' +
    `${first.id})`
  );
}

/** A small deterministic random generator (mulberry32). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Runs a simulated carrier against the mock server: starts a receiver, registers it through the mock's
 * control API, takes every new order, and drives a simulated courier from the restaurant to the
 * destination with positions along the way, then delivers; progress is shown live, one line per order.
 * @example
 * const sim = await runSimulator({ baseUrl: 'http://127.0.0.1:4010', port: 4020, speedKmh: 40, chaos: true });
 * // … place orders on the mock …
 * await sim.stop();
 */
export async function runSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  const seed = options.seed ?? 1;
  const random = seeded(seed);
  const output = options.output ?? process.stdout;
  const view = new ProgressView(output, options.tty === undefined ? {} : { tty: options.tty });
  const stats: SimulatorStats = { orders: 0, delivered: 0, cancelled: 0, failed: 0, problems: 0, abandoned: 0 };
  const leaseMs = options.leaseMs ?? 10_000;
  // Loaded only for a shared store, so the simulator runs without the pg package otherwise.
  const shared: ReplicaStores | undefined = options.store
    ? await (await import('../postgres/replica-stores.js')).openReplicaStores(options.store, leaseMs)
    : undefined;
  const signing = options.secret ? { signing: { secret: options.secret } } : {};
  const agent = createCarrierAgent({
    baseUrl: options.baseUrl,
    ...(options.mockSession !== undefined ? { mockSession: options.mockSession } : {}),
    positions: { minIntervalMs: options.minIntervalMs ?? 10_000 },
    ...(shared
      ? {
          outboxStore: shared.outboxStore,
          // The answer waits for the work and its dedupe mark to commit: a replica that dies half-way
          // never answers, so the service sends the callback again, to a replica that lives.
          receiver: { ...signing, dedupe: { store: shared.dedupe, leaseMs: 5000 }, ack: 'after-processing' as const },
        }
      : {
          ...(options.outboxFile ? { outboxStore: createFileOutboxStore(options.outboxFile) } : {}),
          ...(options.secret ? { receiver: signing } : {}),
        }),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.meterProvider ? { meterProvider: options.meterProvider } : {}),
  });
  // On the file outbox, the deliveries under way are kept beside it, so a restart drives them on.
  const journal: DeliveryJournal | undefined =
    !shared && options.outboxFile
      ? createDeliveryJournal(`${options.outboxFile.replace(/\.json$/, '')}.deliveries.json`)
      : undefined;
  const runs = new Map<
    number,
    {
      controller: AbortController;
      done: Promise<CourierProgress['phase']>;
      order: CourierProgress['order'];
      tracker: DeliveryTracker;
    }
  >();
  let stopping = false;
  let nextCourier = 0;

  agent.on('newOrder', async ({ order, tracker, event }) => {
    if (runs.has(order.id) || tracker.finished) return;
    if (shared) {
      // One replica drives each delivery: the claim commits with the callback's dedupe mark.
      const transaction = event ? shared.dedupe.transaction(callbackKey(event)) : undefined;
      if (!(await shared.coordinator.claimDelivery(order.secure_id, order.id, transaction))) return;
      if (runs.has(order.id)) return;
    }
    // Recorded before the courier starts, and before the callback that brought the order counts as processed.
    await journal?.add({ secureId: order.secure_id, orderId: order.id });
    if (runs.has(order.id)) return;
    startRun(order, tracker);
  });
  const startRun = (order: CourierProgress['order'], tracker: DeliveryTracker): void => {
    stats.orders += 1;
    const [name, phone] = COURIERS[nextCourier++ % COURIERS.length]!;
    const courier: CourierInfo = { name, phone, externalId: 4700 + nextCourier };
    const withProblem = random() < (options.problemRate ?? 0);
    const problemMessage = PROBLEMS[Math.floor(random() * PROBLEMS.length)]!;
    const problemAt = 0.3 + random() * 0.4;
    const controller = new AbortController();
    const done = simulateCourier({
      order,
      tracker,
      courier,
      speedKmh: options.speedKmh ?? 25,
      tickMs: options.tickMs ?? 1000,
      signal: controller.signal,
      ...(withProblem
        ? { problem: { atFraction: problemAt, message: problemMessage, pauseMs: options.problemPauseMs ?? 5000 } }
        : {}),
      onProgress: (progress) => {
        if (progress.phase === 'problem') stats.problems += 1;
        view.set(String(order.id), formatProgress(progress), progress.phase);
      },
    }).then(async (phase) => {
      await journal
        ?.remove(order.secure_id)
        .catch((error: unknown) => view.log(`could not record ${order.number} finished: ${String(error)}`));
      if (phase === 'delivered') stats.delivered += 1;
      // Aborted by stop(): counted as abandoned there, once the service knows.
      else if (phase === 'cancelled' && stopping && !tracker.lockedByOrderStatus) return phase;
      else if (phase === 'cancelled') stats.cancelled += 1;
      else if (phase === 'failed') stats.failed += 1;
      if (shared && !stopping) {
        void shared.coordinator
          .finish(order.secure_id)
          .catch((error: unknown) => view.log(`could not mark ${order.number} finished: ${String(error)}`));
      }
      return phase;
    });
    runs.set(order.id, { controller, done, order, tracker });
  };
  agent.on('orderCancelled', ({ order }) => {
    runs.get(order.id)?.controller.abort(new Error('the order was cancelled'));
    if (!runs.has(order.id)) view.log(`${order.number} cancelled before a courier was assigned`);
  });

  await agent.start();
  for (const { secureId } of (await journal?.load()) ?? []) {
    // A delivery under way when the last run died: reloading the order brings it back as a new order.
    void agent
      .refresh(secureId)
      .then(() => (agent.tracker(secureId).finished ? journal!.remove(secureId) : undefined))
      .catch(async (error: unknown) => {
        view.log(`could not resume the delivery of ${secureId}: ${String(error)}`);
        await journal!.remove(secureId);
      });
  }
  // The receiver serves the path of the URL it registers, whatever it is (a balancer's root `/` included):
  // the service posts there, and a balancer passes the path on as it came.
  const served = await serve(agent.handle, {
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    path: options.publicUrl ? new URL(options.publicUrl).pathname : '/callbacks',
  });
  const callbackUrl = options.publicUrl ?? served.url.replace('//0.0.0.0:', '//127.0.0.1:');
  const control: MockControl = createMockControl(
    options.controlUrl ?? options.baseUrl,
    undefined,
    options.mockSession,
    options.controlToken,
  );
  const chaos: CarrierChaos | undefined =
    options.chaos === true
      ? { duplicate: 0.3, delayMs: 1500, reorder: true, seed }
      : options.chaos
        ? options.chaos
        : undefined;
  let carrierId: number;
  let joined = false;
  let warning: string | undefined;
  const register = (): Promise<number> =>
    control.registerCarrier({
      name: options.name ?? 'Simulated carrier',
      callback_url: callbackUrl,
      restaurant_ids: options.restaurantIds ?? null,
      ...(options.secret ? { secret: options.secret } : {}),
      ...(chaos ? { chaos } : {}),
    });
  try {
    if (shared) {
      // Registered once for the public address of all replicas; a replica that comes later joins.
      ({ carrierId, joined } = await shared.coordinator.register(callbackUrl, register, async (id) =>
        (await control.listCarriers()).some((carrier) => carrier.id === id && carrier.callback_url === callbackUrl),
      ));
    } else carrierId = await register();
    const carriers = await control.listCarriers();
    warning = shadowedBy(
      carriers.filter((carrier) => carrier.id < carrierId),
      options.restaurantIds ?? null,
    );
  } catch (error) {
    await served.close();
    await agent.stop();
    await shared?.close();
    throw error;
  }
  if (warning) view.log(warning);
  view.log(
    joined
      ? `carrier ${carrierId} joined at ${callbackUrl} (registered by another replica); this replica listens on ${served.url}; waiting for orders`
      : `carrier ${carrierId} registered at ${callbackUrl}${chaos ? ` with chaos ${JSON.stringify(chaos)}` : ''}; waiting for orders (speed ${options.speedKmh ?? 25} km/h)`,
  );
  const timers: ReturnType<typeof setInterval>[] = [];
  if (shared) {
    const every = (ms: number, work: () => Promise<unknown>): void => {
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        void work()
          .catch((error: unknown) => options.logger?.warn('replica coordination failed', { error: String(error) }))
          .finally(() => (busy = false));
      }, ms);
      timer.unref();
      timers.push(timer);
    };
    every(leaseMs / 3, () => shared.coordinator.heartbeat());
    // Deliveries of a replica that died: once their updates have gone out, this one drives them on.
    every(leaseMs / 2, async () => {
      for (const { secureId } of await shared.coordinator.takeOver(4)) {
        try {
          const order = await agent.refresh(secureId);
          const tracker = agent.tracker(secureId);
          if (tracker.finished) await shared.coordinator.finish(secureId);
          else if (!runs.has(order.id)) {
            view.log(`${order.number} taken over from a replica that stopped (delivery ${tracker.status})`);
            startRun(order, tracker);
          }
        } catch (error) {
          // The order could not be read (the service is down): give it back for a later attempt.
          await shared.coordinator.release(secureId);
          throw error;
        }
      }
    });
  }

  let stopped = false;
  return {
    agent,
    served,
    carrierId,
    callbackUrl,
    get stats() {
      return { ...stats };
    },
    finished(orderId) {
      const run = runs.get(orderId);
      if (run) return run.done;
      return new Promise((resolve) => {
        const off = agent.on('newOrder', ({ order }) => {
          if (order.id !== orderId) return;
          off();
          // The run is registered by the listener added first, which has run by now.
          void runs.get(orderId)?.done.then(resolve);
        });
      });
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      stopping = true;
      for (const timer of timers) clearInterval(timer);
      for (const run of runs.values()) run.controller.abort(new Error('the simulator stops'));
      await Promise.allSettled([...runs.values()].map((run) => run.done));
      if (shared) {
        // One replica of several stops: the others take its deliveries over at once, and the carrier
        // stays registered for them.
        await shared.coordinator.releaseAll().catch(() => undefined);
        await agent.stop();
        await served.close();
        await shared.close();
        view.close();
        view.log(
          `replica stopped: ${stats.orders} orders driven, ${stats.delivered} delivered; ` +
            `callbacks: ${agent.receiver.stats.processed} processed, ${agent.receiver.stats.duplicates} duplicates dropped; ` +
            `updates sent: ${agent.outbox.stats.sent}`,
        );
        return;
      }
      // A delivery left under way would show a courier driving forever: tell the service it stopped.
      const abandoned = [...runs.values()].filter((run) => !run.tracker.finished && run.tracker.can('problem'));
      const reported = await Promise.allSettled(abandoned.map((run) => run.tracker.reportProblem(ABANDONED_MESSAGE)));
      const unsent = await sendWithin(
        agent,
        abandoned.map((run) => run.order.secure_id),
        options.stopTimeoutMs ?? 5000,
      );
      abandoned.forEach((run, index) => {
        stats.abandoned += 1;
        const told = reported[index]!.status === 'fulfilled' && !unsent.has(run.order.secure_id);
        view.set(
          String(run.order.id),
          `${run.order.number}  abandoned: ${told ? 'reported to the service as problem' : 'the service could not be told'}`,
          'problem',
        );
      });
      await control
        .deleteCarrier(carrierId)
        .catch((error: unknown) => view.log(`could not unregister carrier ${carrierId}: ${String(error)}`));
      await agent.stop();
      await served.close();
      view.close();
      view.log(
        `simulator stopped: ${stats.orders} orders, ${stats.delivered} delivered, ${stats.cancelled} cancelled, ${stats.failed} failed, ${stats.abandoned} abandoned, ${stats.problems} problems; ` +
          `callbacks: ${agent.receiver.stats.processed} processed, ${agent.receiver.stats.duplicates} duplicates dropped; ` +
          `updates sent: ${agent.outbox.stats.sent}, positions coalesced: ${agent.outbox.stats.coalesced}`,
      );
    },
  };
}

/** Waits at most `ms` for the outbox to send the pending status updates of `secureIds`; answers those still unsent. */
async function sendWithin(agent: CarrierAgent, secureIds: string[], ms: number): Promise<Set<string>> {
  const deadline = Date.now() + ms;
  // Positions may wait for their interval; only the status updates matter here.
  const unsent = (): Set<string> =>
    new Set(
      agent.outbox
        .pending()
        .filter((entry) => entry.kind === 'status' && secureIds.includes(entry.secureId))
        .map((entry) => entry.secureId),
    );
  while (unsent().size > 0 && Date.now() < deadline) {
    await agent.outbox.idle();
    if (unsent().size > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return unsent();
}
