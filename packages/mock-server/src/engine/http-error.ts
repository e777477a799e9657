import type { components } from '@restoapi/openapi';
import { createDepartureClassifier } from '@restoapi/openapi';
import type { ApiDescription, ValidationIssue } from '@restoapi/openapi';

/** One error object of the API's error body. */
export type ApiErrorObject = components['schemas']['Error'];

/** Where in the request an error points. */
export type ErrorSource = NonNullable<ApiErrorObject['source']>;

/** An error answer: thrown by handlers, turned into the documented error body by the engine. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ApiErrorObject[],
    readonly headers: Record<string, string> = {},
    /** Extra root members of the body (the import `busy` answer carries the running job). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(errors.map((e) => e.detail ?? e.title).join('; '));
    this.name = 'HttpError';
  }

  /** The JSON body of the answer. */
  body(): Record<string, unknown> {
    return { ...this.extra, errors: this.errors };
  }
}

/** Builds one error object. */
export function errorObject(
  status: number,
  code: string,
  title: string,
  detail?: string,
  source?: ErrorSource,
): ApiErrorObject {
  return { status: String(status), code, title, ...(detail ? { detail } : {}), ...(source ? { source } : {}) };
}

/** 400: the request cannot be read, or a parameter is invalid. */
export function badRequest(code: string, detail: string, source?: ErrorSource): HttpError {
  return new HttpError(400, [errorObject(400, code, 'Bad request', detail, source)]);
}

/** 401: no valid session; always the same answer so tokens cannot be probed. */
export function unauthenticated(detail = 'The session token is missing, invalid or has ended.'): HttpError {
  return new HttpError(
    401,
    [errorObject(401, 'unauthenticated', 'Authentication required', detail, { header: 'Authorization' })],
    {
      'WWW-Authenticate': 'Token realm="restoapi"',
    },
  );
}

/** 403: the record is visible but this account may not do this. */
export function forbidden(detail: string, source?: ErrorSource): HttpError {
  return new HttpError(403, [errorObject(403, 'forbidden', 'Action not allowed for this account', detail, source)]);
}

/** 404: missing or out of the caller's scope (the two are indistinguishable on purpose). */
export function notFound(what: string, id: string | number, source: ErrorSource = { parameter: 'id' }): HttpError {
  return new HttpError(404, [
    errorObject(
      404,
      'not_found',
      'Not found',
      `${what} ${id} does not exist or is not visible to this account.`,
      source,
    ),
  ]);
}

/** 405: the path is served, but not with this method; `Allow` lists the methods that are. */
export function methodNotAllowed(method: string, pathname: string, allowed: string[]): HttpError {
  return new HttpError(
    405,
    [
      errorObject(
        405,
        'method_not_allowed',
        'Method not allowed',
        `${method} is not served at ${pathname}; use ${allowed.join(', ')}.`,
      ),
    ],
    {
      Allow: allowed.join(', '),
    },
  );
}

/** 409: the request clashes with the current state. */
export function conflict(code: string, detail: string, source?: ErrorSource): HttpError {
  return new HttpError(409, [errorObject(409, code, 'Conflict with the current state', detail, source)]);
}

/** 413: the body is over a documented limit. */
export function tooLarge(detail: string, source?: ErrorSource): HttpError {
  return new HttpError(413, [errorObject(413, 'too_large', 'Request body too large', detail, source)]);
}

/** 415: a body of a media type the operation does not take. */
export function unsupportedMediaType(detail: string): HttpError {
  return new HttpError(415, [
    errorObject(415, 'unsupported_media_type', 'Unsupported Content-Type', detail, { header: 'Content-Type' }),
  ]);
}

/** One invalid field of a body, for {@link unprocessable}. */
export interface FieldProblem {
  pointer: string;
  code?: string;
  detail: string;
}

/** 422: one error object per invalid field. */
export function unprocessable(problems: FieldProblem[]): HttpError {
  return new HttpError(
    422,
    problems.map((p) =>
      errorObject(422, p.code ?? 'invalid_value', titleFor(p.code ?? 'invalid_value'), p.detail, {
        pointer: p.pointer,
      }),
    ),
  );
}

const TITLES: Record<string, string> = {
  required: 'Missing required field',
  invalid_type: 'Wrong type',
  invalid_value: 'Invalid value',
  unknown_field: 'Unknown field',
  not_editable: 'Field cannot be changed',
  invalid_geometry: 'Invalid geometry',
  invalid_configuration: 'Invalid configuration',
};

function titleFor(code: string): string {
  return TITLES[code] ?? 'Invalid value';
}

const KEYWORD_CODES: Record<string, string> = {
  required: 'required',
  type: 'invalid_type',
  additionalProperties: 'unknown_field',
};

/**
 * Turns validator issues into the documented answer: 415 for a wrong media
 * type, 400 for parameters and unreadable bodies, 422 for invalid fields.
 */
export function fromIssues(issues: ValidationIssue[]): HttpError {
  const mediaType = issues.find((issue) => issue.keyword === 'contentType');
  if (mediaType) return unsupportedMediaType(mediaType.message);
  const params = issues.filter((issue) => issue.in === 'query' || issue.in === 'path' || issue.in === 'header');
  if (params.length > 0) {
    return new HttpError(
      400,
      params.map((issue) =>
        errorObject(
          400,
          'invalid_parameter',
          'Invalid parameter',
          issue.message,
          issue.in === 'header' ? { header: issue.name ?? '' } : { parameter: issue.name ?? '' },
        ),
      ),
    );
  }
  return unprocessable(
    issues.map(
      (issue) =>
        areaShapeProblem(issue) ?? {
          pointer: issue.pointer,
          code: KEYWORD_CODES[issue.keyword] ?? 'invalid_value',
          detail: issue.message,
        },
    ),
  );
}

/**
 * The document's regex on a delivery zone's `area` stops what is no single-ring POLYGON at all
 * (MULTIPOLYGON, holes, other types, malformed WKT) before the handler runs; the document promises
 * `invalid_geometry` for those as for a self-intersecting ring, and a readable reason instead of the regex.
 */
function areaShapeProblem(issue: ValidationIssue): FieldProblem | undefined {
  if (issue.keyword !== 'pattern' || !/(^|\/)area$/.test(issue.pointer)) return undefined;
  return {
    pointer: issue.pointer,
    code: 'invalid_geometry',
    detail:
      'The area must be a simple polygon written as WKT POLYGON((lon lat, lon lat, lon lat, lon lat)): one closed ring of at least 4 points, ' +
      'the last repeating the first. MULTIPOLYGON, rings with holes, other geometry types and malformed WKT are refused.',
  };
}

/**
 * Checks an answer of the mock against its operation in `api`'s document (config `validateResponses`).
 * Drift is logged and answered with a 500 `response_drift`, so a mock bug cannot pass as the documented API;
 * each problem says whether it breaks the written spec (`stated`) or only a decision, which it names.
 */
export function assertDocumentedResponse(
  api: ApiDescription,
  operationId: string,
  status: number,
  body: unknown,
): void {
  const check = api.validateResponse(operationId, {
    status,
    contentType: body === undefined ? undefined : 'application/json',
    body,
  });
  if (check.valid) return;
  const classifier = createDepartureClassifier(api);
  const answer = { status, contentType: body === undefined ? undefined : 'application/json' };
  const detail = check.issues
    .map((issue) => {
      const { decision } = classifier.classify(operationId, answer, issue);
      return `${issue.message} [${decision ? `decided: ${decision.pointer}` : 'stated'}]`;
    })
    .join('; ');
  console.error(`[restoapi-mock] response drift in ${operationId}: ${detail}`);
  throw new HttpError(500, [
    errorObject(500, 'response_drift', 'The mock answered outside the document', `${operationId} ${status}: ${detail}`),
  ]);
}
