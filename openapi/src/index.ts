/**
 * @restoapi/openapi: the bundled OpenAPI 3.1 description of the Online
 * Restaurant Ordering Service API, the operation index derived from it and
 * ajv validators for requests, responses and standalone payloads.
 */
export { openapiDocument } from './generated/document.js';
export type * from './generated/schemas.js';
export { createAjv, describeAjvError } from './ajv.js';
export { listDecisions, type Decision } from './decisions.js';
export { fromBase64, signWebhook, webhookSecretKey } from './webhook-signature.js';
export { backoffDelayMs, type Backoff } from './backoff.js';
export { mediaTypeOf } from './media-type.js';
export {
  decodeStrict,
  nonCanonical,
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
