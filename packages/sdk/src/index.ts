/**
 * @restoapi/sdk: typed clients for the Online Restaurant Ordering Service API.
 */
export { createRestoClient, RestoClient, type RestoClientOptions } from './client/resto-client.js';
export type { FetchLike, Logger, PipelineOptions, RequestOptions } from './transport/options.js';
export type { TokenOption, TokenStore } from './transport/token.js';
export type { ApiPromise, ApiResult } from './transport/api-promise.js';
export type { Call, DefaultOptions } from './transport/core.js';
export type {
  MainBody,
  MainData,
  MainError,
  MainQuery,
  OperationError,
  OperationKey,
  OperationOf,
  RequestBody,
  SuccessBody,
  WithDefaults,
} from './transport/operations.js';
export { createPipeline, type CallSettings, type Pipeline } from './transport/pipeline.js';

export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  ImportJobError,
  ImportJobTimeoutError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RestoApiError,
  TimeoutError,
  UnprocessableEntityError,
  type ApiErrorObject,
  type ImportBusyBody,
  type ServerErrorStatus,
} from './errors/api-error.js';
export { errorFromResponse, type ErrorForStatus } from './errors/error-from-response.js';

export {
  IDEMPOTENT_METHODS,
  isRetryableStatus,
  parseRetryAfter,
  retryDelay,
  type BackoffOptions,
} from './resilience/retry-policy.js';
export { paginate, type PageMeta } from './pagination/paginate.js';
export {
  DEFAULT_IMPORT_TIMEOUT_MS,
  ImportJob,
  type ImportJobState,
  type ImportKind,
  type ImportWaitOptions,
} from './imports/import-job.js';
export { sniffImageType, toUploadForm, type UploadFileOptions, type UploadInput } from './uploads/upload-file.js';
export { fromMinorUnits, toMinorUnits } from './money/minor-units.js';

export {
  type ClientReadBack,
  type ReadBackOn,
  type ReadBackOptions,
  type RecordResult,
} from './resources/read-back.js';
export { SessionResource, type SessionState } from './resources/session.js';
export {
  OrganizationsResource,
  type MenuPublicationResult,
  type OrganizationChange,
  type OrganizationUpdateFields,
} from './resources/organizations.js';
export {
  RestaurantsResource,
  type RestaurantChange,
  type RestaurantFilters,
  type RestaurantUpdateFields,
} from './resources/restaurants.js';
export { CouriersResource, type CourierFilters } from './resources/couriers.js';
export {
  DraftCategoriesResource,
  type DraftCategoryChange,
  type DraftCategoryCreateFields,
  type DraftCategoryFilters,
  type DraftCategoryUpdateFields,
} from './resources/draft-categories.js';
export {
  DraftDishesResource,
  type DraftDishChange,
  type DraftDishCreateFields,
  type DraftDishFilters,
  type DraftDishUpdateFields,
} from './resources/draft-dishes.js';
export {
  DeliveryZonesResource,
  type DeliveryZoneChange,
  type DeliveryZoneCreateFields,
  type DeliveryZoneFilters,
  type DeliveryZoneUpdateFields,
  type TimetableEntryInput,
} from './resources/delivery-zones.js';
export {
  OrdersResource,
  type Order,
  type OrderChange,
  type OrderResponse,
  type OrderFilters,
  type OrderPage,
  type OrderStatus,
  type OrderUpdateFields,
  type PageOptions,
  type SmsOptions,
} from './resources/orders.js';
export {
  ImportsResource,
  type ClientImportBody,
  type ClientImportOptions,
  type JobImportCall,
  type MenuImportBody,
  type OrderImportBody,
  type OrderImportOptions,
  type OrderImportResult,
} from './resources/imports.js';

export {
  CarrierClient,
  createCarrierClient,
  type CarrierClientOptions,
  type CarrierOrder,
  type DeliveryChange,
  type DeliveryStatus,
  type DeliveryUpdate,
} from './carrier/carrier-client.js';

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
