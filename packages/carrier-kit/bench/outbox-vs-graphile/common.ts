/**
 * What the processes of the outbox-vs-graphile bench share: the workload's constants, the one HTTP call
 * both systems make, and a small request/answer protocol over the IPC channel of a forked process.
 */
import { Agent, request } from 'node:http';
import { fork, type ChildProcess } from 'node:child_process';
import type { DeliveryUpdate } from '../../src/index.js';

/** Updates in flight per worker, for both systems. */
export const IN_FLIGHT = 16;
/** The five updates of every order, in the order the service expects them. */
export const STEPS = ['courier_assigned', 'courier_assigned', 'delivering', 'delivering', 'delivered'] as const;

/** The update number `step` (1-based) of an order: the step rides in `courier_name`, for the order check. */
export const patchOf = (step: number): DeliveryUpdate =>
  ({ status: STEPS[step - 1], courier_name: `update ${step}` }) as DeliveryUpdate;

/** Keep-alive sockets, as a carrier's HTTP client to the service would use. */
export const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/** PUT /orders/{secure_id}/delivery: the same call for both systems. */
export function put(base: string, secureId: string, patch: DeliveryUpdate): Promise<void> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(patch);
    const req = request(
      `${base}/orders/${secureId}/delivery`,
      {
        method: 'PUT',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode! < 300
            ? resolve()
            : reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Call {
  id: number;
  cmd: string;
  args: unknown;
}
interface Answer {
  id: number;
  result?: unknown;
  error?: string;
}

/** In a forked process: answers each call of the parent with what `handlers[cmd](args)` resolves to. */
export function serve(handlers: Record<string, (args: never) => unknown>): void {
  process.on('message', (message: Call) => {
    const reply = (answer: Omit<Answer, 'id'>): void => void process.send!({ id: message.id, ...answer });
    Promise.resolve()
      .then(() => handlers[message.cmd]!(message.args as never))
      .then(
        (result) => reply({ result }),
        (error: unknown) => reply({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
      );
  });
}

/** A forked process of the bench and the calls it answers. */
export interface Child {
  /** The process id, to read its CPU time. */
  pid: number;
  call<T = void>(cmd: string, args?: unknown): Promise<T>;
  /** Ends the process and waits for its exit. */
  kill(): Promise<void>;
}

/** Forks `file` (a module of this folder, run by the same tsx loader as the parent) with `args`. */
export function forkChild(file: string, args: string[] = []): Child {
  const child: ChildProcess = fork(new URL(file, import.meta.url), args, { stdio: 'inherit' });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.on('message', (answer: Answer) => {
    const waiter = pending.get(answer.id);
    pending.delete(answer.id);
    if (answer.error !== undefined) waiter?.reject(new Error(`${file}: ${answer.error}`));
    else waiter?.resolve(answer.result);
  });
  child.once('exit', (code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${file} exited (${code}) before answering`));
    pending.clear();
  });
  return {
    pid: child.pid!,
    call: <T>(cmd: string, args?: unknown) =>
      new Promise<T>((resolve, reject) => {
        const id = (next += 1);
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id, cmd, args } satisfies Call);
      }),
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    },
  };
}
