/**
 * `restoapi-contract carrier`: plays the service against a carrier's running service. The service side (the
 * mock engine with the demo world) hands the carrier orders through real callbacks, injects duplicates,
 * reordering and refusals, and watches what the carrier does through the carrier API.
 */
import { connect } from 'node:net';
import {
  createApiDescription,
  createDepartureClassifier,
  getAtPointer,
  listDecisions,
  openapiDocument,
  type DecisionRef,
  type DepartureClassifier,
} from '@restoapi/openapi';
import { CLAUSES } from '../generated/clauses.js';
import { curlOf } from '../runner/curl.js';
import { describeDecision } from '../runner/http.js';
import { groupWarningsByDecision } from '../runner/run.js';
import type {
  ClauseCoverage,
  DecisionCoverage,
  DecisionWarning,
  OperationCoverage,
  Profile,
  Reporter,
  SuiteResult,
  TestResult,
} from '../runner/types.js';
import {
  CARRIER_DECISIONS as D,
  checkAcknowledgements,
  checkDeliveredLast,
  checkDeliveryUpdates,
  checkDuplicates,
  checkGivesUp,
  checkLoadsOrder,
  checkPositions,
  checkReordered,
  checkRetryAfter,
  checkStopsAfterCancel,
  checkTransitions,
  type Finding,
  type HandedOrder,
  type Observation,
} from './carrier-checks.js';
import { checkSignatures } from './signatures.js';
import { startServiceSide, type Chaos, type ServiceSide } from './service-side.js';

/**
 * Times of a carrier run, in ms. The spec states none of them: each judging one is a decision of the document
 * (its default is read from there), and a finding that rests on one is a warning under `spec`.
 */
export interface CarrierTimings {
  /** How long the carrier may take to answer a callback (the document's 10 s: `CallbackAcknowledged`). */
  ackMs: number;
  /** How long a scenario waits for the carrier to load and deliver an order (`x-carrier-timing/delivery`, 60 s). */
  deliveryMs: number;
  /** How long the carrier may still send updates after it acknowledged a cancellation (`…/cancellation`, 1 s). */
  graceMs: number;
  /** The longest time without a courier position while delivering (`…/positions`, 30 s). */
  positionMs: number;
  /** A scenario ends once the carrier has made no call for this long after its goal (1 s; judges nothing). */
  quietMs: number;
}

/** Options of {@link runCarrierConformance}. */
export interface CarrierRunOptions {
  /** The carrier's callback URL: the service side sends its callbacks there (or `onListening` answers it). */
  callbackUrl?: string;
  /** Where the service side listens, e.g. `http://127.0.0.1:4010`; a free port of 127.0.0.1 by default. */
  serviceUrl?: string;
  /** The carrier's signing secret (`whsec_…`): callbacks are signed, and under `full` forged ones must be refused. */
  secret?: string;
  profile?: Profile;
  timings?: Partial<CarrierTimings>;
  /** How many times the carrier may send a refused (4xx) request (default 3). */
  maxRepeats?: number;
  reporters?: Reporter[];
  /**
   * Called once the service side listens, before any callback: the place to print its address, or to start
   * a carrier that needs the service up first (it may answer the carrier's callback URL then).
   */
  onListening?: (serviceUrl: string) => void | string | Promise<void | string>;
  showSecrets?: boolean;
  /** Called as each scenario starts, with the order handed over for it (progress for a long run). */
  onScenario?: (scenario: { index: number; total: number; name: string; plays: string; orderId: number }) => void;
  /** How long to wait for something to listen at the callback URL before the first scenario (default 0: no wait). */
  waitForCarrierMs?: number;
}

const timing = (pointer: string, field: string): number => {
  const value = (getAtPointer(openapiDocument, pointer) as Record<string, unknown> | undefined)?.[field];
  if (typeof value !== 'number') throw new Error(`the document has no number ${field} at ${pointer}`);
  return value;
};

/** The default {@link CarrierTimings}: the document's decided times. */
export const DEFAULT_CARRIER_TIMINGS: CarrierTimings = {
  ackMs: timing('/webhooks/order_created/post/x-retry-policy', 'timeoutMs'),
  deliveryMs: timing(D.deliveryLimit, 'limitMs'),
  graceMs: timing(D.cancellation, 'graceMs'),
  positionMs: timing(D.positions, 'intervalMs'),
  quietMs: 1000,
};

interface CheckSpec {
  id: string;
  title: string;
  /** `spec` when the check tests what the spec states (decided parts warn under `spec`); `full` when only decisions. */
  profile: Profile;
  clauses: string[];
  decisions: string[];
  operations: string[];
}

const GET_CLAUSE = 'Endpoints > Carrier API: GET /api-delivery/orders/:secure_id';
const PUT_CLAUSE = 'Endpoints > Carrier API: PUT /api-delivery/orders/:secure_id/delivery';
const STATUS_CLAUSE = 'Resources > Carrier order view > The delivery block: status';
const POSITION_CLAUSE = 'Resources > Carrier order view > The delivery block: lat, lon';
const EVENTS = ['Events: order_created', 'Events: order_status_changed'];
const WEBHOOKS = [D.atLeastOnce, D.outOfOrder];

/** The checks of a carrier run, in the order they are reported. */
export const CARRIER_CHECKS: CheckSpec[] = [
  {
    id: 'carrier.acknowledges',
    title: 'Decision (callback answers): every callback is answered with a 2xx, within the deadline',
    profile: 'full',
    clauses: EVENTS,
    decisions: [D.acknowledged, D.notAcknowledged],
    operations: ['orderCreatedCallback', 'orderStatusChangedCallback'],
  },
  {
    id: 'carrier.loads-order',
    title:
      'Events (carrier flow) and Authentication 8: after order_created the carrier loads the order by its secure_id, before it updates it',
    profile: 'spec',
    clauses: ['Events: order_created', 'Authentication 8', GET_CLAUSE],
    decisions: [D.deliveryLimit],
    operations: ['getCarrierOrder'],
  },
  {
    id: 'carrier.delivery-updates',
    title: 'Carrier API: every delivery update is JSON with the stated fields and status values',
    profile: 'spec',
    clauses: [PUT_CLAUSE, STATUS_CLAUSE],
    decisions: [D.update],
    operations: ['updateCarrierDelivery'],
  },
  {
    id: 'carrier.delivered-last',
    title:
      'Events (carrier flow), decisions (time limit, delivered is terminal): every scenario ends with an order reported delivered, and nothing after it',
    profile: 'full',
    clauses: ['Events: order_created', STATUS_CLAUSE],
    decisions: [D.deliveryLimit, D.statuses],
    operations: ['updateCarrierDelivery'],
  },
  {
    id: 'carrier.positions',
    title: "Events (carrier flow), decision (position interval): the courier's position comes while it delivers",
    profile: 'full',
    clauses: [POSITION_CLAUSE, PUT_CLAUSE],
    decisions: [D.positions],
    operations: ['updateCarrierDelivery'],
  },
  {
    id: 'carrier.transitions',
    title: 'Decision (delivery statuses): statuses move along the delivery state machine; repeating one is no move',
    profile: 'full',
    clauses: [STATUS_CLAUSE],
    decisions: [D.statuses],
    operations: ['updateCarrierDelivery'],
  },
  {
    id: 'carrier.duplicates',
    title:
      'Decision (callback retries, at-least-once): the work of a callback delivered twice is done once (measured against the flow scenario)',
    profile: 'full',
    clauses: EVENTS,
    decisions: WEBHOOKS,
    operations: ['updateCarrierDelivery'],
  },
  {
    id: 'carrier.reordered',
    title: 'Decision (events not in order): reordered callbacks end in the right state',
    profile: 'full',
    clauses: EVENTS,
    decisions: WEBHOOKS,
    operations: ['getCarrierOrder'],
  },
  {
    id: 'carrier.cancelled',
    title:
      'Decision (stop after a cancellation): after order_status_changed to cancelled the carrier stops updating within the grace',
    profile: 'full',
    clauses: ['Events: order_status_changed', PUT_CLAUSE],
    decisions: [D.cancellation, D.statuses, D.updateErrors],
    operations: ['updateCarrierDelivery'],
  },
  {
    id: 'carrier.retry-after',
    title: 'Decision (Retry-After): after 429 or 503 the carrier retries, and not sooner than asked',
    profile: 'full',
    clauses: [GET_CLAUSE, PUT_CLAUSE],
    decisions: [D.retryAfter, '/components/responses/TooManyRequests', '/components/responses/ServerError'],
    operations: ['getCarrierOrder', 'updateCarrierDelivery'],
  },
  {
    id: 'carrier.gives-up',
    title: 'Decision (carrier API errors): after a 4xx the carrier does not retry for ever',
    profile: 'full',
    clauses: [PUT_CLAUSE],
    decisions: [D.updateErrors],
    operations: ['updateCarrierDelivery'],
  },
  {
    id: 'carrier.signatures',
    title:
      'Decision (signed callbacks, Authentication 9): a carrier with a secret refuses unsigned and forged callbacks',
    profile: 'full',
    clauses: ['Authentication 9'],
    decisions: [D.signature, '/components/parameters/WebhookId'],
    operations: ['orderCreatedCallback', 'orderStatusChangedCallback'],
  },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done()` holds (checked every 25 ms) or `ms` passed; answers whether it held. */
async function until(done: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await done()) return true;
    await sleep(25);
  }
  return done();
}

/** Waits until the carrier made no call for `quietMs` (at most `ms`). */
async function quiet(service: ServiceSide, quietMs: number, ms: number): Promise<void> {
  await until(() => Date.now() - Math.max(0, ...service.calls.map((c) => c.answeredAt)) >= quietMs, ms);
}

const acceptedStatus = (service: ServiceSide, secureId: string, status?: string): boolean =>
  service.calls.some(
    (c) =>
      c.kind === 'update' &&
      c.secureId === secureId &&
      c.status >= 200 &&
      c.status < 300 &&
      (status === undefined || (c.json as { status?: string } | undefined)?.status === status),
  );

/** Waits until no callback of the order is pending any more (at most `ms`). */
async function settled(service: ServiceSide, orderId: number, ms: number): Promise<void> {
  await until(
    async () => (await service.callbacks()).every((c) => c.order_id !== orderId || c.state !== 'pending'),
    ms,
  );
}

interface Scenario {
  name: string;
  /** What the service side does, for progress lines. */
  plays: string;
  chaos?: Chaos;
  run(service: ServiceSide, order: { id: number; secureId: string }, t: CarrierTimings): Promise<void>;
  /** Arms faults before the order is placed. */
  prepare?(service: ServiceSide): Promise<void>;
  /**
   * The scenario's own order cannot be delivered (it is cancelled, or every update refused): once it is over,
   * the carrier is registered anew, without chaos or faults, and a next order handed over, which it must deliver.
   */
  next?: true;
}

/** Delivered (or out of time), then quiet. */
const deliver: Scenario['run'] = async (service, order, t) => {
  await until(() => acceptedStatus(service, order.secureId, 'delivered'), t.deliveryMs);
  await quiet(service, t.quietMs, t.deliveryMs);
};

const SCENARIOS = {
  flow: { name: 'flow', plays: 'a plain delivery', run: deliver },
  duplicates: {
    name: 'duplicates',
    plays: 'every callback sent twice',
    chaos: { duplicate: 1, seed: 1 },
    run: deliver,
  },
  reordered: {
    name: 'reordered',
    plays: 'order_created overtaken by the cancellation, then a plain delivery',
    chaos: { reorder: true, seed: 1 },
    async run(service, order, t) {
      // order_created is held back until the next event: the cancellation overtakes it.
      await service.setOrderStatus(order.id, 'cancelled');
      await settled(service, order.id, t.deliveryMs);
      await quiet(service, t.quietMs, t.deliveryMs);
    },
    next: true,
  },
  cancelled: {
    name: 'cancelled',
    plays: 'the order cancelled once the carrier is on it, then a plain delivery',
    async run(service, order, t) {
      await until(() => acceptedStatus(service, order.secureId), t.deliveryMs);
      await service.setOrderStatus(order.id, 'cancelled');
      await settled(service, order.id, t.deliveryMs);
      await sleep(t.graceMs);
      await quiet(service, t.quietMs, t.deliveryMs);
    },
    next: true,
  },
  retryAfter: {
    name: 'retry-after',
    plays: '429 and 503 with Retry-After: 1 from the carrier API',
    async prepare(service) {
      await service.addFault({ method: 'GET', path: '/api-delivery/orders/*', status: 429, retryAfter: 1, count: 1 });
      await service.addFault({
        method: 'PUT',
        path: '/api-delivery/orders/*/delivery',
        status: 503,
        retryAfter: 1,
        count: 1,
      });
    },
    // The two faults ask for 1 s each: that time is the carrier's on top of the delivery's.
    run: (service, order, t) => deliver(service, order, { ...t, deliveryMs: t.deliveryMs + 2000 }),
  },
  refused: {
    name: 'refused',
    plays: 'every delivery update refused with 422, then a plain delivery',
    async prepare(service) {
      await service.addFault({ method: 'PUT', path: '/api-delivery/orders/*/delivery', status: 422, count: 10_000 });
    },
    async run(service, order, t) {
      await until(() => service.calls.some((c) => c.kind === 'update' && c.status === 422), t.deliveryMs);
      await quiet(service, t.quietMs, t.deliveryMs);
    },
    next: true,
  },
} satisfies Record<string, Scenario>;

async function observe(
  service: ServiceSide,
  scenario: Scenario,
  options: CarrierRunOptions,
  timings: CarrierTimings,
  onOrder: (orderId: number) => void,
): Promise<Observation> {
  const carrier = { callbackUrl: options.callbackUrl!, ...(options.secret ? { secret: options.secret } : {}) };
  await service.reset({ ...carrier, ...(scenario.chaos ? { chaos: scenario.chaos } : {}) });
  await scenario.prepare?.(service);
  const startedAt = Date.now();
  const order = await service.placeOrder();
  onOrder(order.id);
  await scenario.run(service, order, timings);
  let next: HandedOrder | undefined;
  if (scenario.next) {
    await service.register(carrier);
    const placed = await service.placeOrder();
    await deliver(service, placed, timings);
    next = { orderId: placed.id, secureId: placed.secureId };
  }
  const orderIds = new Set([order.id, ...(next ? [next.orderId] : [])]);
  return {
    scenario: scenario.name,
    orderId: order.id,
    secureId: order.secureId,
    ...(next ? { next } : {}),
    calls: [...service.calls],
    callbacks: (await service.callbacks()).filter((c) => orderIds.has(c.order_id)),
    startedAt,
  };
}

function clauseCoverage(results: TestResult[]): ClauseCoverage[] {
  const named = new Set(CARRIER_CHECKS.flatMap((c) => c.clauses));
  return CLAUSES.filter((c) => named.has(c.id)).map((clause) => {
    const tests = results.filter((r) => r.clauses.includes(clause.id)).map((r) => ({ id: r.id, status: r.status }));
    const state = tests.some((t) => t.status === 'failed')
      ? 'failed'
      : tests.some((t) => t.status === 'passed')
        ? 'covered'
        : tests.length
          ? 'skipped'
          : 'uncovered';
    return { id: clause.id, section: clause.section, text: clause.text, notShown: clause.notShown, tests, state };
  });
}

function operationCoverage(observations: Observation[]): OperationCoverage[] {
  const ops: OperationCoverage[] = [
    {
      operationId: 'getCarrierOrder',
      method: 'GET',
      route: '/api-delivery/orders/{secure_id}',
      documentedStatuses: [],
      seenStatuses: {},
      calls: 0,
    },
    {
      operationId: 'updateCarrierDelivery',
      method: 'PUT',
      route: '/api-delivery/orders/{secure_id}/delivery',
      documentedStatuses: [],
      seenStatuses: {},
      calls: 0,
    },
    {
      operationId: 'orderCreatedCallback',
      method: 'POST',
      route: '{callback_url}?type=order_created',
      documentedStatuses: ['2XX'],
      seenStatuses: {},
      calls: 0,
    },
    {
      operationId: 'orderStatusChangedCallback',
      method: 'POST',
      route: '{callback_url}?type=order_status_changed',
      documentedStatuses: ['2XX'],
      seenStatuses: {},
      calls: 0,
    },
  ];
  const count = (op: OperationCoverage, status: number | null): void => {
    op.calls += 1;
    const key = status === null ? 'none' : String(status);
    op.seenStatuses[key] = (op.seenStatuses[key] ?? 0) + 1;
  };
  for (const o of observations) {
    for (const call of o.calls) if (call.kind !== 'other') count(ops[call.kind === 'load' ? 0 : 1]!, call.status);
    for (const callback of o.callbacks)
      for (const attempt of callback.attempts) count(ops[callback.type === 'order_created' ? 2 : 3]!, attempt.status);
  }
  const document = openapiDocument as {
    paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  };
  ops[0]!.documentedStatuses = Object.keys(document.paths['/api-delivery/orders/{secure_id}']?.get?.responses ?? {});
  ops[1]!.documentedStatuses = Object.keys(
    document.paths['/api-delivery/orders/{secure_id}/delivery']?.put?.responses ?? {},
  );
  return ops;
}

/**
 * The next orders of the scenarios that have one, each as a scenario of its own: judged like a plain delivery,
 * without the order before it (whose updates were cancelled or refused, so its statuses never moved).
 */
function nextOrders(observations: Observation[]): Observation[] {
  return observations.flatMap(({ next, ...o }) => (next ? [{ ...o, ...next }] : []));
}

/** What a carrier run observed and found, before a profile judges it (the same recording serves both). */
export interface CarrierRecording {
  serviceUrl: string;
  startedAt: Date;
  durationMs: number;
  observations: Observation[];
  /** Each check's finding and the time it took (the scenario it was played for), by check id. */
  findings: Record<string, [Finding, number]>;
}

/**
 * Plays every scenario against the carrier service whose callbacks arrive at `callbackUrl` (a plain delivery,
 * duplicated and reordered callbacks, a cancellation, 429/503 with Retry-After, refusals; after a scenario
 * whose own order cannot be delivered, a next order that must be) and makes every check. The carrier must be
 * told to use the service URL (given to `onListening`) as its `{base_url}`.
 */
export async function recordCarrier(options: CarrierRunOptions): Promise<CarrierRecording> {
  const timings: CarrierTimings = { ...DEFAULT_CARRIER_TIMINGS, ...options.timings };
  const startedAt = new Date();
  const service = await startServiceSide({
    ...(options.serviceUrl ? { serviceUrl: options.serviceUrl } : {}),
    callbackTimeoutMs: timings.ackMs,
  });
  const observations: Partial<Record<keyof typeof SCENARIOS, Observation>> = {};
  const timeOf: Record<string, number> = {};
  try {
    const started = await options.onListening?.(service.url);
    const callbackUrl = started ?? options.callbackUrl;
    if (!callbackUrl) throw new TypeError('runCarrierConformance needs a callbackUrl');
    options = { ...options, callbackUrl };
    if (options.waitForCarrierMs) await waitForListener(callbackUrl, options.waitForCarrierMs);
    const scenarios = Object.entries(SCENARIOS) as [keyof typeof SCENARIOS, Scenario][];
    for (const [index, [key, scenario]] of scenarios.entries()) {
      const began = Date.now();
      observations[key] = await observe(service, scenario, options, timings, (orderId) =>
        options.onScenario?.({
          index: index + 1,
          total: scenarios.length,
          name: scenario.name,
          plays: scenario.plays,
          orderId,
        }),
      );
      timeOf[key] = Date.now() - began;
    }
    const signing = Date.now();
    const signed: [Finding, number] = [
      await checkSignatures(callbackUrl, options.secret, timings.ackMs),
      Date.now() - signing,
    ];
    const o = observations as Record<keyof typeof SCENARIOS, Observation>;
    const all = Object.values(o);
    // Each scenario's time goes to the check it was played for, so the checks' times add up to the run's.
    const findings: Record<string, [Finding, number]> = {
      'carrier.acknowledges': [checkAcknowledgements(all, timings.ackMs), 0],
      'carrier.loads-order': [checkLoadsOrder(all, timings.deliveryMs), timeOf.flow!],
      'carrier.delivery-updates': [checkDeliveryUpdates(all), 0],
      'carrier.delivered-last': [checkDeliveredLast(all, timings.deliveryMs), 0],
      'carrier.positions': [checkPositions(all, timings.positionMs), 0],
      'carrier.transitions': [checkTransitions([o.flow, o.duplicates, o.retryAfter, ...nextOrders(all)]), 0],
      'carrier.duplicates': [checkDuplicates(o.duplicates, o.flow), timeOf.duplicates!],
      'carrier.reordered': [checkReordered(o.reordered), timeOf.reordered!],
      'carrier.cancelled': [checkStopsAfterCancel(o.cancelled, timings.graceMs), timeOf.cancelled!],
      'carrier.retry-after': [checkRetryAfter(o.retryAfter), timeOf.retryAfter!],
      'carrier.gives-up': [checkGivesUp(o.refused, options.maxRepeats ?? 3), timeOf.refused!],
      'carrier.signatures': signed,
    };
    return {
      serviceUrl: service.url,
      startedAt,
      durationMs: Date.now() - startedAt.getTime(),
      observations: all,
      findings,
    };
  } finally {
    await service.close();
  }
}

/** Judges a recording under a profile: the suite's `SuiteResult`, told to each reporter. */
export async function judgeCarrier(
  recording: CarrierRecording,
  profile: Profile,
  options: Pick<CarrierRunOptions, 'showSecrets' | 'reporters'> = {},
): Promise<SuiteResult> {
  const reporters = options.reporters ?? [];
  const classifier = createDepartureClassifier(createApiDescription());
  const results: TestResult[] = [];
  for (const spec of CARRIER_CHECKS) {
    const [found, durationMs] = recording.findings[spec.id]!;
    const result = resultOf(spec, found, profile, durationMs, {
      showSecrets: options.showSecrets ?? false,
      classifier,
    });
    results.push(result);
    for (const reporter of reporters) reporter.onTestEnd?.(result);
  }
  const summary = {
    total: results.length,
    passed: results.filter((r) => r.status === 'passed').length,
    failed: results.filter((r) => r.status === 'failed').length,
    skipped: results.filter((r) => r.status === 'skipped').length,
    warnings: results.reduce((n, r) => n + r.warnings.length, 0),
  };
  const named = new Set(CARRIER_CHECKS.flatMap((c) => c.decisions));
  const decisions: DecisionCoverage[] = listDecisions(openapiDocument)
    .filter((d) => named.has(d.pointer))
    .map((d) => ({
      pointer: d.pointer,
      where: d.where,
      tests: results.filter((r) => r.decisions.includes(d.pointer)).map((r) => ({ id: r.id, status: r.status })),
    }));
  const result: SuiteResult = {
    baseUrl: recording.serviceUrl,
    carrierBaseUrl: `${recording.serviceUrl}/api-delivery`,
    profile,
    selection: 'carrier',
    seed: 0,
    startedAt: recording.startedAt.toISOString(),
    durationMs: recording.durationMs,
    results,
    summary,
    operations: operationCoverage(recording.observations),
    clauses: clauseCoverage(results),
    decisions,
    warningsByDecision: groupWarningsByDecision(results),
    // A carrier run has no configuration that could turn checks off.
    relaxations: [],
    ok: summary.failed === 0 && summary.passed > 0,
  };
  for (const reporter of reporters) await reporter.onEnd?.(result);
  return result;
}

/**
 * Runs the carrier conformance checks against the carrier service whose callbacks arrive at `callbackUrl`
 * ({@link recordCarrier}) and judges them under the profile ({@link judgeCarrier}), reporting each check as a
 * test of the main suite's reports.
 * @example
 * const result = await runCarrierConformance({ callbackUrl: 'http://127.0.0.1:4020/callbacks', profile: 'full' });
 */
export async function runCarrierConformance(options: CarrierRunOptions): Promise<SuiteResult> {
  return judgeCarrier(await recordCarrier(options), options.profile ?? 'spec', options);
}

/** Resolves once a TCP connection to the URL's host and port succeeds; throws naming the URL after `ms`. */
async function waitForListener(url: string, ms: number): Promise<void> {
  const { hostname, port, protocol } = new URL(url);
  const target = { host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || (protocol === 'https:' ? 443 : 80)) };
  const connects = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(target, () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  if (!(await until(connects, ms)))
    throw new CarrierUnreachableError(`nothing listens at the callback URL ${url} (waited ${ms} ms)`);
}

/** The carrier's callback URL cannot be reached: nothing was checked. */
export class CarrierUnreachableError extends Error {
  override name = 'CarrierUnreachableError';
}

/** Method and route of each operation a check names, for its decision warnings. */
const ROUTES: Record<string, [string, string]> = {
  getCarrierOrder: ['GET', '/api-delivery/orders/{secure_id}'],
  updateCarrierDelivery: ['PUT', '/api-delivery/orders/{secure_id}/delivery'],
  orderCreatedCallback: ['POST', '{callback_url}?type=order_created'],
  orderStatusChangedCallback: ['POST', '{callback_url}?type=order_status_changed'],
};

function resultOf(
  spec: CheckSpec,
  found: Finding,
  profile: Profile,
  durationMs: number,
  options: { showSecrets: boolean; classifier: DepartureClassifier },
): TestResult {
  // Each decided finding names its decision, which must be one the check lists (and so one the report shows).
  const refs = new Map<string, DecisionRef>();
  for (const { decision } of found.decided) {
    const ref = options.classifier.decisionAt(decision);
    if (!ref) throw new Error(`${spec.id}: ${decision} is not an x-decision of the document`);
    if (!spec.decisions.includes(decision)) throw new Error(`${spec.id}: ${decision} is not among its decisions`);
    refs.set(decision, ref);
  }
  // Under spec, a break of a decision is a warning; a check made only of decisions is still run, so it warns.
  const failures =
    profile === 'full'
      ? [
          ...found.stated,
          ...[...refs].flatMap(([pointer, ref]) => [
            ...found.decided.filter((d) => d.decision === pointer).map((d) => d.message),
            `(these break the ${describeDecision(ref)})`,
          ]),
        ]
      : found.stated;
  const calls = [...new Set(found.calls)];
  const [method, route] = ROUTES[spec.operations[0]!] ?? ['', ''];
  const first = calls[0];
  const decisionWarnings: DecisionWarning[] =
    profile === 'full'
      ? []
      : found.decided.map(({ message, decision }) => {
          const ref = refs.get(decision)!;
          return {
            decision: ref.pointer,
            entry: ref.entry,
            summary: ref.summary,
            operationId: spec.operations[0]!,
            method: first?.method ?? method,
            path: first ? new URL(first.url).pathname : route,
            status: first?.status ?? 0,
            message,
          };
        });
  return {
    id: spec.id,
    title: spec.title,
    kind: spec.profile === 'spec' ? 'behaviour' : 'decision',
    profile: spec.profile,
    clauses: spec.clauses,
    decisions: spec.decisions,
    operations: spec.operations,
    status: found.skip ? 'skipped' : failures.length ? 'failed' : 'passed',
    durationMs,
    ...(failures.length ? { failure: failures.join('\n') } : {}),
    ...(found.skip ? { skipReason: found.skip } : {}),
    warnings: decisionWarnings.map((w) => `${w.message} (departs from the ${describeDecision(refs.get(w.decision)!)})`),
    ...(decisionWarnings.length ? { decisionWarnings } : {}),
    requests: calls.length,
    ...(failures.length && calls.length
      ? { reproducers: calls.slice(0, 5).map((c) => curlOf(c, options.showSecrets)) }
      : {}),
  };
}
