/**
 * @restoapi/openapi: the bundled OpenAPI 3.1 description of the Online
 * Restaurant Ordering Service API, the operation index derived from it and
 * ajv validators for requests, responses and standalone payloads.
 */
export { openapiDocument } from './generated/document.js';
export type * from './generated/schemas.js';
/** The main API's types (openapi-typescript): `paths`, `operations`, `components`. */
export type { components, operations, paths } from './generated/main.js';
/** The carrier API's types; its paths are relative to the carrier base `{base_url}/api-delivery`. */
export type { operations as carrierOperations, paths as carrierPaths, webhooks } from './generated/carrier.js';
/** The mock's control API (`/__mock`) types. */
export type {
  components as controlComponents,
  operations as controlOperations,
  paths as controlPaths,
} from './generated/control.js';
export { createAjv, describeAjvError } from './ajv.js';
export { decisionAnchor, listDecisions, type Decision } from './decisions.js';
export { fromBase64, signWebhook, webhookSecretKey } from './webhook-signature.js';
export { backoffDelayMs, type Backoff } from './backoff.js';
export { mediaTypeOf } from './media-type.js';
export { createControlClient, type ControlClient, type ControlClientOptions } from './control-client.js';
export {
  decodeStrict,
  nonCanonical,
  nonCanonicalKeyword,
  parameterSyntax,
  parseQueryStrict,
  type ParameterSyntax,
  type StrictQuery,
} from './strict-parameters.js';
export {
  CARRIER_PATH_PREFIX,
  HTTP_METHODS,
  Router,
  escapePointer,
  getAtPointer,
  listOperations,
  type HttpMethod,
  type OperationInfo,
  type ParameterInfo,
  type ResponseInfo,
  type RouteMatch,
} from './operations.js';
export {
  createApiDescription,
  createApiValidator,
  issuesOf,
  parameterSchema,
  type ApiDescription,
  type ApiDescriptionOptions,
  type ApiValidator,
  type ApiValidatorOptions,
  type CoercedParameters,
  type IssueLocation,
  type RequestInput,
  type ResponseInput,
  type ValidationIssue,
  type ValidationResult,
} from './validators.js';
export {
  createDepartureClassifier,
  JSON_MEDIA_TYPE,
  type ClassifiedIssue,
  type ClassifiedResponse,
  type DecisionRef,
  type DepartureBasis,
  type DepartureClassifier,
} from './departures.js';
