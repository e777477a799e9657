/**
 * @restoapi/carrier-kit: receive the service's carrier callbacks, load orders, and push delivery
 * status and courier positions through a durable outbox. Runs wherever `fetch` does; the node:http
 * adapters, the file outbox store and the simulator are in `@restoapi/carrier-kit/node`.
 */
export {
  CarrierAgent,
  createCarrierAgent,
  type CarrierAgentEvents,
  type CarrierAgentOptions,
  type OrderView,
  type ViewSource,
} from './agent/carrier-agent.js';
export { readOrderStatusProgress, type OrderStatusProgress } from './agent/order-status-progress.js';
export {
  asCarrierApi,
  createCarrierApi,
  isProgrammingError,
  isRetryableError,
  retryAfterOf,
  type CarrierApi,
  type CarrierApiOptions,
  type CarrierCallOptions,
  type CarrierOrder,
  type CarrierOrderStatus,
  type Delivery,
  type DeliveryStatus,
  type DeliveryUpdate,
} from './carrier-api/carrier-api.js';
export {
  createMemoryDedupeStore,
  type ClaimResult,
  type DedupeStore,
  type MemoryDedupeStoreOptions,
} from './dedupe/dedupe-store.js';
export { TypedEmitter, type Listener } from './events/typed-emitter.js';
export {
  createAuditTrail,
  discardAudit,
  type AuditEntry,
  type AuditSink,
  type AuditStep,
  type AuditTrail,
  type AuditTrailOptions,
} from './observability/audit-trail.js';
export { consoleLogger, silentLogger, type LogFields, type LogLevel, type Logger } from './observability/logger.js';
export { backoffDelay, type BackoffPolicy } from './outbox/backoff.js';
export { distanceMeters, type LatLon } from './geo/haversine.js';
export {
  createOutbox,
  describePatch,
  type Outbox,
  type OutboxEvents,
  type OutboxOptions,
  type OutboxStats,
  type PositionOutcome,
  type PositionPolicy,
} from './outbox/outbox.js';
export {
  assertSnapshot,
  createMemoryOutboxStore,
  isSharedOutboxStore,
  type MemoryOutboxStore,
  type SharedEnqueueResult,
  type SharedOutboxStore,
  type OutboxEntry,
  type OutboxEntryKind,
  type OutboxSnapshot,
  type OutboxStore,
} from './outbox/outbox-store.js';
export { createSharedOutbox, type SharedOutboxOptions } from './outbox/shared-outbox.js';
export {
  callbackKey,
  parseCallback,
  type CallbackEvent,
  type CallbackEventOf,
  type CallbackType,
  type OrderCreatedEvent,
  type OrderStatusChangedEvent,
  type ParsedCallback,
} from './receiver/callback-event.js';
export {
  createCallbackReceiver,
  type CallbackContext,
  type CallbackHandler,
  type CallbackHandlers,
  type CallbackReceiver,
  type CallbackReceiverOptions,
  type DedupeOptions,
  type FetchHandler,
  type ReceiverStats,
  type SigningOptions,
} from './receiver/callback-receiver.js';
export { createMemoryCallbackInbox, type CallbackInbox, type RecordedCallback } from './receiver/callback-inbox.js';
export {
  simulateCourier,
  type CourierProgress,
  type CourierSimulationOptions,
  type SimulatedProblem,
} from './simulator/courier-simulator.js';
export {
  createMockControl,
  ServiceUnreachableError,
  type CarrierChaos,
  type CarrierRegistration,
  type MockControl,
  type RegisteredCarrier,
} from './simulator/mock-control.js';
export {
  ProgressView,
  formatProgress,
  type ProgressOutput,
  type ProgressViewOptions,
} from './simulator/progress-view.js';
export { DEMO_RESTAURANT_LOCATIONS, restaurantLocation, straightRoute, type Route } from './simulator/route.js';
export {
  signWebhook,
  verifyWebhookSignature,
  webhookSecretKey,
  type SignatureCheck,
  type SignatureFailure,
  type SignatureInput,
} from './signing/webhook-signature.js';
export {
  createManualScheduler,
  sleep,
  systemScheduler,
  type ManualScheduler,
  type Scheduler,
  type TimerHandle,
} from './time/scheduler.js';
export {
  deliveryStateMachine,
  orderStatusMap,
  readDeliveryStateMachine,
  type DeliveryStateMachine,
  type DeliveryTransition,
} from './tracker/delivery-state-machine.js';
export {
  DeliveryTracker,
  IllegalTransitionError,
  type CourierInfo,
  type DeliveryTrackerOptions,
} from './tracker/delivery-tracker.js';
