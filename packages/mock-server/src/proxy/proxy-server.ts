/**
 * `restoapi-mock proxy`: a validating, recording reverse proxy in front of a real service. Every request
 * goes to the upstream unchanged and its answer comes back unchanged; both are checked against the API
 * description on the way, and what breaks the contract is printed, tallied and (on demand) refused.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { createApiDescription, createDepartureClassifier, mediaTypeOf, type ApiDescription } from '@restoapi/openapi';
import { errorObject, type ApiErrorObject } from '../engine/http-error.js';
import { decodedBody, endToEndHeaders, Forwarder, holdBody, UpstreamError, type HeldBody } from './forwarder.js';
import { ProxyReport, type ProxyReportJson } from './proxy-report.js';
import {
  checkRequest,
  checkResponse,
  documentsJson,
  isJsonMedia,
  plainViolation,
  type Exchange,
  type Judge,
  type ProxyProfile,
  type Violation,
} from './violation.js';

/** Default of `--timeout`: how long the upstream may stay silent before the answer is a 502. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;

/** Bodies up to this size are held and checked; larger ones stream through unchecked. */
export const CHECKED_BODY_LIMIT = 8 * 1024 * 1024;

/** Options of {@link createProxyServer}. */
export interface ProxyServerOptions {
  /** The service to forward to, e.g. `https://staging.example.com` (a path prefix is kept). */
  upstream: string | URL;
  /** Port to listen on; 0 picks a free one (default). */
  port?: number;
  /** Interface to listen on (default `127.0.0.1`). */
  host?: string;
  /** Milliseconds the upstream may stay silent (default {@link DEFAULT_UPSTREAM_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Replace an answer that violates the document by a 502 listing the violations (warnings never are). */
  failOnViolation?: boolean;
  /**
   * `spec` (default): an answer that departs only from what the document decided where the spec says
   * "not shown" is a warning naming the decision; `full`: it is a violation too.
   */
  profile?: ProxyProfile;
  /** Called with each violation as it is seen (the CLI prints it). */
  onViolation?: (violation: Violation) => void;
  /** Called with each warning (a decided departure under `spec`) as it is seen. */
  onWarning?: (warning: Violation) => void;
  /**
   * Called with each checked answer of an operation whose body is JSON (the recorder listens here); the
   * answer goes back to the client once a returned promise settles (the recording is on disk first).
   */
  onAnswer?: (exchange: Exchange, status: number, json: unknown) => unknown;
  /** The description to check against (default: this package's document). */
  api?: ApiDescription;
}

/** A running proxy. */
export interface ProxyServer {
  /** Its base URL, e.g. `http://127.0.0.1:4010`. */
  url: string;
  server: Server;
  /** The violations per operation so far (what `GET /__proxy/report` answers). */
  report(): ProxyReportJson;
  /** Stops listening and drops the upstream connections. */
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Writes one of the proxy's own answers, in the API's error body convention. */
function answerJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function badGateway(code: string, detail: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { errors: [errorObject(502, code, 'Bad gateway', detail)], ...extra };
}

/** The 502 body of `--fail-on-violation`: one error object per violation, and the violations themselves. */
export function violationBody(violations: Violation[]): Record<string, unknown> {
  const errors: ApiErrorObject[] = violations.map((v) =>
    errorObject(
      502,
      'contract_violation',
      'The upstream answer violates the API description',
      `${v.side} ${v.pointer === '' ? '(whole)' : v.pointer}: expected ${v.expected}, got ${v.actual}`,
      v.side === 'response' && v.pointer !== '' ? { pointer: v.pointer } : undefined,
    ),
  );
  return { errors, violations };
}

/**
 * Starts the proxy.
 * @example
 * const proxy = await createProxyServer({ upstream: 'https://staging.example.com', port: 4010 });
 * // … run the app or the tests against proxy.url …
 * console.log(proxy.report().violations);
 * await proxy.close();
 */
export async function createProxyServer(options: ProxyServerOptions): Promise<ProxyServer> {
  const upstream = new URL(options.upstream);
  const api = options.api ?? createApiDescription();
  const forwarder = new Forwarder(upstream, options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS);
  const profile = options.profile ?? 'spec';
  const judge: Judge = { classifier: createDepartureClassifier(api), profile };
  const report = new ProxyReport(upstream.href, profile);
  const host = options.host ?? '127.0.0.1';

  const seen = (exchange: Exchange, violations: Violation[], warnings: Violation[] = []): void => {
    for (const violation of violations) options.onViolation?.(violation);
    for (const warning of warnings) options.onWarning?.(warning);
    const op = exchange.operation;
    report.add(
      op ? { operationId: op.operationId, method: op.method, path: op.path } : undefined,
      violations,
      warnings,
    );
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    let url: URL;
    try {
      // Only origin-form targets: the proxy forwards to its one upstream, never where a client points it.
      if (!target.startsWith('/') || target.startsWith('//')) throw new Error('not a path');
      url = new URL(target, 'http://proxy.local');
    } catch {
      answerJson(res, 400, {
        errors: [
          errorObject(400, 'invalid_url', 'Bad request', 'The request target must be a path such as /api/orders.'),
        ],
      });
      return;
    }
    if (url.pathname === '/__proxy/report' && method === 'GET') {
      answerJson(res, 200, report.toJSON());
      return;
    }
    const match = api.match(method, url.pathname);
    const exchange: Exchange = {
      method,
      url,
      operation: match?.operation,
      params: match?.params ?? {},
      ...(match?.malformed ? { malformed: match.malformed } : {}),
    };
    const aborted = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    const hasBody = method !== 'GET' && method !== 'HEAD';
    const held: HeldBody | undefined = hasBody ? await holdBody(req, CHECKED_BODY_LIMIT) : undefined;
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      try {
        headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
      } catch {
        // A header fetch refuses is still forwarded; it just cannot be checked.
      }
    }
    const violations = await checkRequest(api, exchange, headers, held && 'bytes' in held ? held.bytes : undefined);

    let answer: IncomingMessage;
    try {
      answer = await forwarder.send(method, url.pathname + url.search, req.rawHeaders, held, aborted.signal);
    } catch (error) {
      if (aborted.signal.aborted) return;
      const failure = error instanceof UpstreamError ? error : new UpstreamError('unreachable', String(error));
      const expected = failure.kind === 'timeout' ? 'an answer within the timeout' : 'an answer';
      violations.push(plainViolation(exchange, 'upstream', failure.kind, expected, failure.message, failure.message));
      seen(exchange, violations);
      answerJson(res, 502, badGateway(`upstream_${failure.kind}`, failure.message));
      return;
    }

    const status = answer.statusCode ?? 502;
    const contentType = (answer.headers['content-type'] as string | undefined) ?? null;
    const op = exchange.operation;
    const bodyless = method === 'HEAD' || status === 204 || status === 304;
    const worthHolding =
      !bodyless &&
      op !== undefined &&
      (documentsJson(op, status) || isJsonMedia(mediaTypeOf(contentType) || undefined));
    const responseHeaders = endToEndHeaders(answer.rawHeaders);
    const checkedHeaders = Object.fromEntries(
      Object.entries(answer.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]),
    );
    if (!worthHolding) {
      // Not JSON (a receipt, an undocumented path) or no body: status and media type are checked, the bytes stream.
      const checked = op
        ? checkResponse(api, exchange, { status, contentType, bytes: undefined, headers: checkedHeaders }, judge)
        : undefined;
      violations.push(...(checked?.violations ?? []));
      seen(exchange, violations, checked?.warnings);
      res.writeHead(status, answer.statusMessage, responseHeaders);
      await pipeline(answer, res).catch(() => res.destroy());
      return;
    }
    let body: HeldBody;
    try {
      body = await holdBody(answer, CHECKED_BODY_LIMIT);
    } catch {
      const reason = `the upstream connection broke while sending the body of ${status}`;
      violations.push(plainViolation(exchange, 'upstream', 'unreachable', 'a whole answer', reason, reason));
      seen(exchange, violations);
      answerJson(res, 502, badGateway('upstream_unreachable', reason));
      return;
    }
    const decoded =
      'bytes' in body
        ? decodedBody(body.bytes, answer.headers['content-encoding'] as string | undefined, CHECKED_BODY_LIMIT)
        : undefined;
    const checked = checkResponse(
      api,
      exchange,
      { status, contentType, bytes: decoded, headers: checkedHeaders },
      judge,
    );
    if (checked.notJson !== undefined) {
      const reason = `${op!.operationId} ${status} documents a JSON body; the upstream sent ${checked.notJson}`;
      violations.push(plainViolation(exchange, 'upstream', 'not_json', 'a JSON body', checked.notJson, reason));
      seen(exchange, violations);
      answerJson(res, 502, badGateway('upstream_not_json', reason));
      return;
    }
    violations.push(...checked.violations);
    seen(exchange, violations, checked.warnings);
    if (checked.json !== undefined)
      await Promise.resolve(options.onAnswer?.(exchange, status, checked.json)).catch(() => {
        // A listener that fails (the recording's disk is full) never costs the client its answer.
      });
    if (options.failOnViolation && checked.violations.length > 0) {
      answerJson(res, 502, violationBody(checked.violations));
      return;
    }
    res.writeHead(status, answer.statusMessage, responseHeaders);
    if ('bytes' in body) res.end(body.bytes);
    else await pipeline(body.stream, res).catch(() => res.destroy());
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A client that went away mid-body, or a bug: never a crash of the proxy.
      answerJson(res, 502, badGateway('proxy_error', `the proxy could not forward this request (${String(error)})`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${hostInUrl}:${port}`,
    server,
    report: () => report.toJSON(),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      forwarder.close();
    },
  };
}
