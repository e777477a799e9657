/**
 * One replica of one system of the outbox-vs-graphile bench, in a process of its own as a deployment runs
 * it: it queues its share of the orders (those with `order % replicas === index`) and sends them to the
 * service. The parent drives it over IPC: `init`, `queue`, `start`, `stop`.
 */
import pg from 'pg';
import { Logger, makeWorkerUtils, run, type Runner, type WorkerUtils } from 'graphile-worker';
import { createSharedOutbox, type CarrierApi, type DeliveryUpdate, type Outbox } from '../../src/index.js';
import { createPostgresOutboxStore } from '../../src/postgres.js';
import { IN_FLIGHT, STEPS, agent, patchOf, put, serve } from './common.js';

/** What a replica is told at `init`. */
export interface ReplicaSetup {
  system: 'ours' | 'anchor' | 'bound';
  url: string;
  serviceUrl: string;
  index: number;
  replicas: number;
  orders: number;
  /** Orders this replica queues at once (each order's updates one after another). */
  callers: number;
}

/** A system's replica: queue with `enqueue`, send once `start` ran, `stop` ends it. */
interface Replica {
  enqueue(order: number, step: number): Promise<unknown>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

function ours(setup: ReplicaSetup): Replica {
  const api: CarrierApi = {
    getOrder: () => Promise.reject(new Error('not used')),
    updateDelivery: async (secureId, patch) => {
      await put(setup.serviceUrl, secureId, patch);
      return undefined;
    },
  };
  // As many connections as graphile-worker's replica has below: its WorkerUtils pool (addJob, pg's default
  // of 10) and its runner's (maxPoolSize 10).
  const pool = new pg.Pool({ connectionString: setup.url, max: 20 });
  const store = createPostgresOutboxStore({ pool, owner: `replica-${setup.index + 1}` });
  const outbox: Outbox = createSharedOutbox({
    api,
    store,
    batch: IN_FLIGHT,
    retry: { initialDelayMs: 50, maxDelayMs: 200 },
  });
  let started = false;
  return {
    enqueue(order, step) {
      const patch = patchOf(step);
      if (started) return outbox.enqueue(`order-${order}`, patch);
      // Before the start: straight into the store, as a replica would have queued them before a restart.
      return store.enqueue({
        secureId: `order-${order}`,
        kind: 'status',
        patch,
        terminal: step === STEPS.length,
        minIntervalMs: 0,
      });
    },
    async start() {
      started = true;
      await outbox.start();
    },
    async stop() {
      await outbox.stop();
      await pool.end();
    },
  };
}

const quiet = new Logger(() => () => undefined);

/**
 * No queue at all: the updates wait in this process's memory and go out with the same HTTP call, IN_FLIGHT
 * at a time, each order's in sequence. Nothing is durable; it is the ceiling any queue on this machine can
 * reach with this workload, so a ratio to the anchor above this one's cannot be reached by the queue.
 */
function bound(): Replica {
  /** Each order's updates not sent yet, in sequence. */
  const waiting = new Map<number, number[]>();
  /** Orders whose next update may go now (none of theirs in flight), first come first served. */
  const ready: number[] = [];
  let head = 0;
  let inFlight = 0;
  let started = false;
  // A queue of ready orders, not a scan of every waiting update per send: the ceiling must not carry a cost
  // of its own that grows with the backlog (a scan of it cost 0.02 ms of replica CPU per update, drained).
  const pump = (): void => {
    while (started && inFlight < IN_FLIGHT && head < ready.length) {
      const order = ready[head++]!;
      if (head === ready.length) ready.length = head = 0;
      const step = waiting.get(order)![0]!;
      inFlight += 1;
      put(setup.serviceUrl, `order-${order}`, patchOf(step)).then(
        () => {
          inFlight -= 1;
          const steps = waiting.get(order)!;
          steps.shift();
          if (steps.length > 0) ready.push(order);
          else waiting.delete(order);
          pump();
        },
        (error: unknown) => {
          throw error;
        },
      );
    }
  };
  return {
    enqueue(order, step) {
      const steps = waiting.get(order);
      if (steps) steps.push(step);
      else {
        waiting.set(order, [step]);
        ready.push(order);
      }
      pump();
      return Promise.resolve();
    },
    start() {
      started = true;
      pump();
      return Promise.resolve();
    },
    stop: () => Promise.resolve(),
  };
}

async function anchor(setup: ReplicaSetup): Promise<Replica> {
  const utils: WorkerUtils = await makeWorkerUtils({ connectionString: setup.url, logger: quiet });
  let runner: Runner | undefined;
  return {
    enqueue(order, step) {
      return utils.addJob(
        'send',
        { secureId: `order-${order}`, patch: patchOf(step) },
        { queueName: `order-${order}` },
      );
    },
    async start() {
      runner = await run({
        logger: quiet,
        noHandleSignals: true,
        taskList: {
          send: async (payload) => {
            const { secureId, patch } = payload as { secureId: string; patch: DeliveryUpdate };
            await put(setup.serviceUrl, secureId, patch);
          },
        },
        preset: {
          worker: {
            connectionString: setup.url,
            concurrentJobs: IN_FLIGHT,
            maxPoolSize: 10,
            pollInterval: 250,
            localQueue: { size: 500 },
            completeJobBatchDelay: 0,
            failJobBatchDelay: 0,
          },
        },
      });
    },
    async stop() {
      await runner?.stop();
      await utils.release();
    },
  };
}

let setup: ReplicaSetup;
let replica: Replica;

serve({
  init: async (args: ReplicaSetup) => {
    setup = args;
    replica = setup.system === 'ours' ? ours(setup) : setup.system === 'bound' ? bound() : await anchor(setup);
  },
  /** Queues this replica's orders, `callers` at a time, each order's updates in sequence. */
  queue: async () => {
    let next = setup.index;
    await Promise.all(
      Array.from({ length: setup.callers }, async () => {
        while (next < setup.orders) {
          const order = next;
          next += setup.replicas;
          for (let step = 1; step <= STEPS.length; step += 1) await replica.enqueue(order, step);
        }
      }),
    );
  },
  start: () => replica.start(),
  stop: async () => {
    await replica.stop();
    agent.destroy();
  },
});
process.on('disconnect', () => process.exit(0));
