/**
 * A small carrier service written without the kit, for the carrier conformance tests: it keeps the contract,
 * unless it is given one of the faults below, each of which one check of `restoapi-contract carrier` must catch.
 * It delivers in one of several styles, each correct: a run must judge them all the same.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a faulty carrier does wrong. */
export type CarrierFault =
  | 'handles-duplicates-twice'
  | 'ignores-retry-after'
  | 'sends-unstated-status'
  | 'never-delivers'
  | 'updates-cancelled-order'
  | 'acknowledges-late'
  | 'delivers-only-first';

/**
 * How a correct carrier reports a delivery:
 * - `plain`: each status once, positions in updates of their own;
 * - `resends-status`: the current status again with every update, positions included (a repeated status is a
 *   no-op the document allows);
 * - `through-problem`: the courier gets stuck on the way, `delivering → problem → delivering`, then delivers.
 */
export type CarrierStyle = 'plain' | 'resends-status' | 'through-problem';

/** Options of {@link startTestCarrier}. */
export interface TestCarrierOptions {
  /** Where the carrier API is: the service URL the conformance run prints, plus `/api-delivery`. */
  carrierApi: () => string;
  fault?: CarrierFault;
  /** How it reports a delivery (`plain` by default). */
  style?: CarrierStyle;
  /** Port of its callback receiver on 127.0.0.1 (a free one by default). */
  port?: number;
  /** Time between two steps of a delivery. */
  stepMs?: number;
  /** How long a late acknowledgement waits. */
  lateAckMs?: number;
  /** With `updates-cancelled-order`: how long after it loads the cancelled order it sends one more position. */
  lateUpdateMs?: number;
}

/** A running test carrier. */
export interface TestCarrier {
  callbackUrl: string;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the test carrier's callback receiver on 127.0.0.1. */
export async function startTestCarrier(options: TestCarrierOptions): Promise<TestCarrier> {
  const { fault } = options;
  const stepMs = options.stepMs ?? 100;
  const seen = new Set<string>();
  const started = new Set<string>();
  const stopped = new Set<string>();
  const chains = new Map<string, Promise<unknown>>();

  /** A carrier API call; 429 and 503 are retried after `Retry-After`, anything else is final. */
  const call = async (method: string, path: string, body?: unknown): Promise<Response | undefined> => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const response = await fetch(`${options.carrierApi()}${path}`, {
        method,
        ...(body ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {}),
      });
      if (response.status !== 429 && response.status !== 503) return response;
      await response.arrayBuffer();
      const asked = Number(response.headers.get('retry-after') ?? 1) * 1000;
      await sleep(fault === 'ignores-retry-after' ? 20 : asked);
    }
    return undefined;
  };

  const update = async (secureId: string, body: Record<string, unknown>): Promise<void> => {
    if (stopped.has(secureId) && fault !== 'updates-cancelled-order') return;
    const response = await call('PUT', `/orders/${encodeURIComponent(secureId)}/delivery`, body);
    await response?.arrayBuffer();
  };

  const deliver = async (secureId: string): Promise<void> => {
    const style = options.style ?? 'plain';
    const courier = { courier_name: 'Ada Test', courier_phone: '+49 160 1234567' };
    await update(secureId, { status: 'courier_assigned', ...courier });
    await sleep(stepMs);
    // Waiting at the restaurant: this style says where it stands once more.
    if (style === 'resends-status') await update(secureId, { status: 'courier_assigned' });
    if (fault === 'sends-unstated-status') await update(secureId, { status: 'picked_up' });
    await update(secureId, { status: 'delivering' });
    for (let step = 1; step <= 3; step++) {
      await sleep(stepMs);
      const position = { lat: 52.5 + step / 1000, lon: 13.42 + step / 1000 };
      await update(secureId, style === 'resends-status' ? { status: 'delivering', ...position } : position);
      if (style === 'through-problem' && step === 1) {
        await update(secureId, { status: 'problem', message: 'Stuck behind a tram.' });
        await sleep(stepMs);
        await update(secureId, { status: 'delivering', message: null });
      }
    }
    await sleep(stepMs);
    if (fault !== 'never-delivers') await update(secureId, { status: 'delivered', message: 'Handed over.' });
  };

  const handle = async (secureId: string, type: string | null): Promise<void> => {
    const response = await call('GET', `/orders/${encodeURIComponent(secureId)}`);
    if (!response?.ok) return;
    const { order } = (await response.json()) as { order: { order_status: string } };
    if (order.order_status === 'cancelled' || order.order_status === 'complete') {
      stopped.add(secureId);
      // The fault, made certain: whatever the delivery still had to send, one more position comes well past any
      // grace, so the verdict does not hang on how far the delivery had got when the cancellation arrived.
      if (fault === 'updates-cancelled-order' && started.has(secureId)) {
        await sleep(options.lateUpdateMs ?? 1500);
        await update(secureId, { lat: 52.51, lon: 13.43 });
      }
      return;
    }
    const again = started.has(secureId);
    if (again && !(fault === 'handles-duplicates-twice' && type === 'order_created')) return;
    // The fault: a flag set by the first delivery and never reset, so every later order is loaded and left.
    if (fault === 'delivers-only-first' && started.size > 0 && !again) return;
    started.add(secureId);
    // In the background: a later callback of the order (a cancellation) must not wait for the delivery.
    void deliver(secureId).catch(() => undefined);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://carrier.local');
    const secureId = url.searchParams.get('order_secure_id');
    const type = url.searchParams.get('type');
    const key = String(req.headers['webhook-id'] ?? `${type}:${secureId}:${url.searchParams.get('status') ?? ''}`);
    const duplicate = seen.has(key);
    seen.add(key);
    if (secureId && (!duplicate || fault === 'handles-duplicates-twice')) {
      // The callbacks of one order are handled in turn; the answer does not wait for them.
      const work = (chains.get(secureId) ?? Promise.resolve()).then(() => handle(secureId, type));
      chains.set(
        secureId,
        work.catch(() => undefined),
      );
    }
    const answer = () => res.writeHead(204).end();
    if (fault === 'acknowledges-late') setTimeout(answer, options.lateAckMs ?? 1000);
    else answer();
  });
  // Longer than any pause between two callbacks of a run: the service side reuses its connection, and one the
  // server closes as it is reused (Node's 5 s default) ends that callback with ECONNRESET and a retry.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    callbackUrl: `http://127.0.0.1:${port}/callbacks`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
