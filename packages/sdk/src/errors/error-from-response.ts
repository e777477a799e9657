import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RestoApiError,
  UnprocessableEntityError,
  type ApiErrorObject,
  type RestoApiErrorInit,
  type ServerErrorStatus,
} from './api-error.js';

/** The error class an HTTP status maps to (the table of the README). */
export type ErrorForStatus<S> = S extends 400
  ? BadRequestError
  : S extends 401
    ? AuthenticationError
    : S extends 403
      ? PermissionDeniedError
      : S extends 404
        ? NotFoundError
        : S extends 409
          ? ConflictError
          : S extends 422
            ? UnprocessableEntityError
            : S extends 429
              ? RateLimitError
              : S extends '5XX' | ServerErrorStatus
                ? InternalServerError
                : S extends number
                  ? S extends 200 | 201 | 202 | 203 | 204 | 206
                    ? never
                    : RestoApiError<S>
                  : S extends 'default' | '4XX'
                    ? RestoApiError<number>
                    : never;

function errorObjects(body: unknown): ApiErrorObject[] {
  const errors = body && typeof body === 'object' ? (body as { errors?: unknown }).errors : undefined;
  return Array.isArray(errors) ? errors.filter((e): e is ApiErrorObject => !!e && typeof e === 'object') : [];
}

/**
 * Builds the typed error of an error answer: the class follows the status, `errors` and `requestId` come from the body and headers.
 * @example
 * const error = errorFromResponse(response, await response.json(), 'GET /api/orders/{id}');
 */
export function errorFromResponse(response: Response, body: unknown, operation: string): RestoApiError<number> {
  const init: RestoApiErrorInit<number> = {
    status: response.status,
    operation,
    errors: errorObjects(body),
    headers: response.headers,
    body,
  };
  switch (response.status) {
    case 400:
      return new BadRequestError(init as RestoApiErrorInit<400>);
    case 401:
      return new AuthenticationError(init as RestoApiErrorInit<401>);
    case 403:
      return new PermissionDeniedError(init as RestoApiErrorInit<403>);
    case 404:
      return new NotFoundError(init as RestoApiErrorInit<404>);
    case 409:
      return new ConflictError(init as RestoApiErrorInit<409>);
    case 422:
      return new UnprocessableEntityError(init as RestoApiErrorInit<422>);
    case 429:
      return new RateLimitError(init as RestoApiErrorInit<429>);
  }
  if (response.status >= 500) return new InternalServerError(init as RestoApiErrorInit<ServerErrorStatus>);
  return new RestoApiError(init);
}
