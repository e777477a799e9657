/**
 * Every OpenTelemetry instrument of the kit, in one module: names, units and descriptions. The kit records
 * through `@opentelemetry/api` only, which does nothing until the application installs an SDK (a
 * `MeterProvider` with the exporter of its choice, Prometheus among them); see the README's Observability.
 */
import { metrics, type Attributes, type MeterProvider } from '@opentelemetry/api';
import type { CarrierApi } from '../carrier-api/carrier-api.js';
import type { Outbox } from '../outbox/outbox.js';
import type { Scheduler } from '../time/scheduler.js';

/** The meter's name: the package's. */
export const METER_NAME = '@restoapi/carrier-kit';

/**
 * The instruments' names (OpenTelemetry style). The Prometheus exporter writes them with `_` for `.`, and `_total`
 * after a counter: `carrier_outbox_pending`, `carrier_outbox_send_attempts_total`, `carrier_outbox_send_duration_bucket`.
 */
export const METRIC_NAMES = {
  /** Gauge: delivery updates waiting in the outbox (queue depth). */
  outboxPending: 'carrier.outbox.pending',
  /** Gauge: age of the oldest update waiting in the outbox, in seconds (0 when none waits). */
  outboxOldestPendingAge: 'carrier.outbox.oldest_pending_age',
  /** Histogram: duration of one `PUT …/delivery` call, in seconds; `outcome` ok or error. */
  sendDuration: 'carrier.outbox.send.duration',
  /** Counter: attempts to send a delivery update (each call of `PUT …/delivery`). */
  sendAttempts: 'carrier.outbox.send.attempts',
  /** Counter: failed attempts by what came of them: `retry`, `rejected` (refused for good), `failed` (a bug). */
  sendFailures: 'carrier.outbox.send.failures',
  /** Counter: callback requests by `outcome` (accepted, duplicate, invalid, unauthorized, ignored, not_recorded…). */
  callbacksReceived: 'carrier.callbacks.received',
  /** Counter: callbacks acknowledged without processing because the same one was processed or in flight. */
  callbacksDuplicated: 'carrier.callbacks.duplicated',
  /** Counter: callbacks processed, by `outcome` (processed, failed) and `resumed` (recorded before a restart). */
  callbacksProcessed: 'carrier.callbacks.processed',
  /** Histogram: duration of the agent's reads of an order (`GET /orders/{secure_id}`), in seconds. */
  orderLoadDuration: 'carrier.agent.order_load.duration',
} as const;

/** Buckets of the durations, in seconds (the SDK's default buckets are for milliseconds). */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function meterOf(provider: MeterProvider | undefined) {
  // Taken when a component is created, not at import: an SDK installed after the import still gets the figures.
  return (provider ?? metrics.getMeterProvider()).getMeter(METER_NAME);
}

/** The receiver's instruments. */
export function receiverMetrics(provider?: MeterProvider) {
  const meter = meterOf(provider);
  const received = meter.createCounter(METRIC_NAMES.callbacksReceived, {
    description: 'Callback requests received, by outcome',
    unit: '{callback}',
  });
  const duplicated = meter.createCounter(METRIC_NAMES.callbacksDuplicated, {
    description: 'Callbacks acknowledged as duplicates without processing',
    unit: '{callback}',
  });
  const processed = meter.createCounter(METRIC_NAMES.callbacksProcessed, {
    description: 'Callbacks processed, by outcome',
    unit: '{callback}',
  });
  return {
    received: (outcome: string, type?: string) => received.add(1, { outcome, ...(type ? { type } : {}) }),
    duplicated: (type: string) => duplicated.add(1, { type }),
    processed: (outcome: 'processed' | 'failed', type: string, resumed: boolean) =>
      processed.add(1, { outcome, type, resumed }),
  };
}

/** Times a call into a histogram with its outcome. */
async function timed<T>(record: (seconds: number, attributes: Attributes) => void, call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await call();
    record((performance.now() - started) / 1000, { outcome: 'ok' });
    return result;
  } catch (error) {
    record((performance.now() - started) / 1000, { outcome: 'error' });
    throw error;
  }
}

/**
 * The carrier API, its calls timed: every `PUT …/delivery` counts as a send attempt with its latency, every
 * `GET /orders/{secure_id}` as an order read. The agent gives the outbox and its own loads this one.
 */
export function instrumentCarrierApi(api: CarrierApi, provider?: MeterProvider): CarrierApi {
  const meter = meterOf(provider);
  const attempts = meter.createCounter(METRIC_NAMES.sendAttempts, {
    description: 'Attempts to send a delivery update',
    unit: '{attempt}',
  });
  const sendDuration = meter.createHistogram(METRIC_NAMES.sendDuration, {
    description: 'Duration of one delivery update call',
    unit: 's',
    advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
  });
  const loadDuration = meter.createHistogram(METRIC_NAMES.orderLoadDuration, {
    description: 'Duration of one read of an order',
    unit: 's',
    advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
  });
  return {
    getOrder: (secureId, init) => timed(loadDuration.record.bind(loadDuration), () => api.getOrder(secureId, init)),
    updateDelivery: (secureId, patch, init) => {
      attempts.add(1);
      return timed(sendDuration.record.bind(sendDuration), () => api.updateDelivery(secureId, patch, init));
    },
  };
}

/** Reports an outbox's queue depth, the age of its oldest pending update and its failed attempts. */
export function observeOutbox(outbox: Outbox, scheduler: Scheduler, provider?: MeterProvider): void {
  const meter = meterOf(provider);
  meter
    .createObservableGauge(METRIC_NAMES.outboxPending, {
      description: 'Delivery updates waiting in the outbox',
      unit: '{update}',
    })
    .addCallback((result) => result.observe(outbox.pending().length));
  meter
    .createObservableGauge(METRIC_NAMES.outboxOldestPendingAge, {
      description: 'Age of the oldest delivery update waiting in the outbox',
      unit: 's',
    })
    .addCallback((result) => {
      const oldest = Math.min(...outbox.pending().map((entry) => entry.createdAt));
      result.observe(Number.isFinite(oldest) ? Math.max(0, (scheduler.now() - oldest) / 1000) : 0);
    });
  const failures = meter.createCounter(METRIC_NAMES.sendFailures, {
    description: 'Failed attempts to send a delivery update, by what came of them',
    unit: '{attempt}',
  });
  outbox.on('retry', () => failures.add(1, { outcome: 'retry' }));
  outbox.on('rejected', () => failures.add(1, { outcome: 'rejected' }));
  outbox.on('failed', () => failures.add(1, { outcome: 'failed' }));
}
