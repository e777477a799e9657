/**
 * @restoapi/carrier-kit/node: the Node.js side of the kit: node:http and Express/Connect adapters
 * of the callback receiver, a small server, the file outbox store and the carrier simulator.
 */
export {
  serve,
  toFetchRequest,
  toMiddleware,
  toNodeListener,
  writeFetchResponse,
  type MiddlewareOptions,
  type NextFunction,
  type NodeAdapterOptions,
  type ServeOptions,
  type ServedReceiver,
} from './receiver/node-adapter.js';
export {
  callbacksFileOf,
  createFileOutboxStore,
  writeFileAtomic,
  type FileOutboxStoreOptions,
} from './outbox/file-outbox-store.js';
export { createFileCallbackInbox, type FileCallbackInboxOptions } from './receiver/file-callback-inbox.js';
export { startPrometheus, type PrometheusEndpoint } from './simulator/prometheus.js';
export {
  runSimulator,
  type RunningSimulator,
  type SimulatorOptions,
  type SimulatorStats,
} from './simulator/run-simulator.js';
