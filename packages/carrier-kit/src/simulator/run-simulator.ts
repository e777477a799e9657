import { createCarrierAgent, type CarrierAgent } from '../agent/carrier-agent.js';
import type { Logger } from '../observability/logger.js';
import { createFileOutboxStore } from '../outbox/file-outbox-store.js';
import { serve, type ServedReceiver } from '../receiver/node-adapter.js';
import type { CourierInfo } from '../tracker/delivery-tracker.js';
import { simulateCourier, type CourierProgress } from './courier-simulator.js';
import { createMockControl, type CarrierChaos, type MockControl } from './mock-control.js';
import { ProgressView, formatProgress, type ProgressOutput } from './progress-view.js';

/** Options of {@link runSimulator}. */
export interface SimulatorOptions {
  /** Base address of the service (the mock), `{base_url}`. */
  baseUrl: string;
  /** Base address of the mock's control API (default: `baseUrl`). */
  controlUrl?: string;
  /** Port of the callback receiver (default 0: a free one). */
  port?: number;
  /** Interface the receiver listens on (default `127.0.0.1`). */
  host?: string;
  /** The callback URL to register when the mock reaches the receiver under another address (e.g. in Docker). */
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
  /** Name of the carrier in the mock's lists (default `Simulated carrier`). */
  name?: string;
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
  /** Stops the couriers, unregisters the carrier and stops the receiver. */
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
  const stats: SimulatorStats = { orders: 0, delivered: 0, cancelled: 0, failed: 0, problems: 0 };
  const agent = createCarrierAgent({
    baseUrl: options.baseUrl,
    positions: { minIntervalMs: options.minIntervalMs ?? 10_000 },
    ...(options.outboxFile ? { outboxStore: createFileOutboxStore(options.outboxFile) } : {}),
    ...(options.secret ? { receiver: { signing: { secret: options.secret } } } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const runs = new Map<number, { controller: AbortController; done: Promise<CourierProgress['phase']> }>();
  let nextCourier = 0;

  agent.on('newOrder', ({ order, tracker }) => {
    if (runs.has(order.id) || tracker.finished) return;
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
    }).then((phase) => {
      if (phase === 'delivered') stats.delivered += 1;
      else if (phase === 'cancelled') stats.cancelled += 1;
      else if (phase === 'failed') stats.failed += 1;
      return phase;
    });
    runs.set(order.id, { controller, done });
  });
  agent.on('orderCancelled', ({ order }) => {
    runs.get(order.id)?.controller.abort(new Error('the order was cancelled'));
    if (!runs.has(order.id)) view.log(`${order.number} cancelled before a courier was assigned`);
  });

  await agent.start();
  const served = await serve(agent.handle, { port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  const callbackUrl = options.publicUrl ?? served.url.replace('//0.0.0.0:', '//127.0.0.1:');
  const control: MockControl = createMockControl(options.controlUrl ?? options.baseUrl);
  const chaos: CarrierChaos | undefined =
    options.chaos === true
      ? { duplicate: 0.3, delayMs: 1500, reorder: true, seed }
      : options.chaos
        ? options.chaos
        : undefined;
  let carrierId: number;
  try {
    carrierId = await control.registerCarrier({
      name: options.name ?? 'Simulated carrier',
      callback_url: callbackUrl,
      restaurant_ids: options.restaurantIds ?? null,
      ...(options.secret ? { secret: options.secret } : {}),
      ...(chaos ? { chaos } : {}),
    });
  } catch (error) {
    await served.close();
    await agent.stop();
    throw error;
  }
  view.log(
    `carrier ${carrierId} registered at ${callbackUrl}${chaos ? ` with chaos ${JSON.stringify(chaos)}` : ''}; waiting for orders (speed ${options.speedKmh ?? 25} km/h)`,
  );

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
      for (const run of runs.values()) run.controller.abort(new Error('the simulator stops'));
      await Promise.allSettled([...runs.values()].map((run) => run.done));
      await control
        .deleteCarrier(carrierId)
        .catch((error: unknown) => view.log(`could not unregister carrier ${carrierId}: ${String(error)}`));
      await agent.stop();
      await served.close();
      view.close();
      view.log(
        `simulator stopped: ${stats.orders} orders, ${stats.delivered} delivered, ${stats.cancelled} cancelled, ${stats.failed} failed, ${stats.problems} problems; ` +
          `callbacks: ${agent.receiver.stats.processed} processed, ${agent.receiver.stats.duplicates} duplicates dropped; ` +
          `updates sent: ${agent.outbox.stats.sent}, positions coalesced: ${agent.outbox.stats.coalesced}`,
      );
    },
  };
}
