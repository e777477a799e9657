/**
 * @restoapi/sdk: typed clients for the Online Restaurant Ordering Service API.
 */
export {
  authorizationHeader,
  carrierBaseUrl,
  createRawCarrierClient,
  createRawClient,
  tokenMiddleware,
  type RawCarrierClient,
  type RawCarrierClientOptions,
  type RawClientOptions,
  type RawMainClient,
  type TokenSupplier,
} from './raw/raw-client.js';
export type { components, operations, paths } from './generated/main.js';
export type { operations as carrierOperations, paths as carrierPaths, webhooks } from './generated/carrier.js';
