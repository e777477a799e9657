import { describe, expect, test } from 'vitest';
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
} from './api-error.js';
import { errorFromResponse } from './error-from-response.js';

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(null, { status, headers: { 'X-Request-Id': 'req_42', ...headers } });
const errorBody = (status: number, code: string, pointer?: string) => ({
  errors: [
    { status: String(status), code, title: 'T', detail: `detail ${code}`, ...(pointer ? { source: { pointer } } : {}) },
  ],
});

describe('status → error class', () => {
  test.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [503, InternalServerError],
    [599, InternalServerError],
  ])('%i is a %o', (status, Class) => {
    const body = errorBody(status, 'c');
    const error = errorFromResponse(answer(status, body), body, 'GET /api/orders/{id}');
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(RestoApiError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      status,
      requestId: 'req_42',
      operation: 'GET /api/orders/{id}',
      errors: body.errors,
      name: Class.name,
    });
    expect(error.message).toBe(`GET /api/orders/{id} failed with ${status}: detail c`);
  });

  test('other statuses and unreadable bodies give a plain RestoApiError', () => {
    const error = errorFromResponse(answer(413, 'too big'), '<html>too big</html>', 'PUT /api/draft_dishes/{id}/photo');
    expect(error.constructor).toBe(RestoApiError);
    expect(error).toMatchObject({ status: 413, errors: [], body: '<html>too big</html>' });
  });

  test('the import busy answer is recognised on a 409', () => {
    const busy = {
      status: 'busy',
      job_id: 'abc',
      job_status: 'working',
      job_message: 'Importing',
      job_percent: 40,
      ...errorBody(409, 'import_busy'),
    };
    const error = errorFromResponse(
      answer(409, busy),
      busy,
      'POST /api/organizations/{id}/import/menu',
    ) as ConflictError;
    expect(error.busy).toEqual(busy);
    const other = errorFromResponse(
      answer(409, {}),
      errorBody(409, 'illegal_transition'),
      'PUT /api/orders/{id}/status',
    ) as ConflictError;
    expect(other.busy).toBeUndefined();
  });

  test('422 exposes the field pointers', () => {
    const body = {
      errors: [
        ...errorBody(422, 'required', '/draft_dish/name').errors,
        ...errorBody(422, 'invalid_value', '/draft_dish/price').errors,
        ...errorBody(422, 'x').errors,
      ],
    };
    const error = errorFromResponse(answer(422, body), body, 'POST /api/draft_dishes') as UnprocessableEntityError;
    expect(error.pointers).toEqual(['/draft_dish/name', '/draft_dish/price']);
    expect(error.errorsAt('/draft_dish/price').map((e) => e.code)).toEqual(['invalid_value']);
  });

  test('429 tells the Retry-After', () => {
    const error = errorFromResponse(answer(429, {}, { 'Retry-After': '3' }), {}, 'GET /api/orders') as RateLimitError;
    expect(error.retryAfterMs).toBe(3000);
  });
});
