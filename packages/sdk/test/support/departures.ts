/**
 * Test support: a service that answers like the mock except where a test makes it decide otherwise, where the
 * spec says "not shown" (a `204` without body, another name for a finished job, another session body). A
 * `fetch` wrapper: the request goes to the mock as it is, the answer is rewritten.
 */
import type { FetchLike } from '@restoapi/sdk';

/** One departure: rewrites the answer to a matching request, or leaves it (`undefined`). */
export type Departure = (method: string, path: string, answer: Response) => Promise<Response | undefined>;

/** A `fetch` in front of another, applying departures, with a log of the requests (`METHOD /path`). */
export interface DepartingFetch {
  fetch: FetchLike;
  /** Every request made, as `METHOD /path?query`. */
  requests: string[];
}

/** Wraps `fetch` so that each answer goes through the departures (the first that rewrites it wins). */
export function departing(fetch: FetchLike, departures: Departure[]): DepartingFetch {
  const requests: string[] = [];
  const wrapped: FetchLike = async (input, init) => {
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const url = new URL(input instanceof Request ? input.url : input);
    requests.push(`${method} ${url.pathname}${url.search}`);
    const answer = await fetch(input, init);
    for (const departure of departures) {
      const rewritten = await departure(method, url.pathname, answer.clone());
      if (rewritten) return rewritten;
    }
    return answer;
  };
  return { fetch: wrapped, requests };
}

/** A 2xx answer to `method` on a path matching `path` becomes `204 No Content` without body. */
export function noContent(method: string, path: RegExp): Departure {
  return async (m, p, answer) =>
    m === method && path.test(p) && answer.ok
      ? new Response(null, { status: 204, headers: withoutBodyHeaders(answer.headers) })
      : undefined;
}

/** A 2xx JSON answer to `method` on `path` gets another body (`body` of the old one). */
export function otherBody(method: string, path: RegExp, body: (old: unknown) => unknown): Departure {
  return async (m, p, answer) => {
    if (m !== method || !path.test(p) || !answer.ok || answer.status === 204) return undefined;
    const text = await answer.text();
    const headers = withoutBodyHeaders(answer.headers);
    headers.set('content-type', 'application/json');
    return new Response(JSON.stringify(body(text === '' ? undefined : JSON.parse(text))), {
      status: answer.status,
      headers,
    });
  };
}

function withoutBodyHeaders(headers: Headers): Headers {
  const copy = new Headers(headers);
  copy.delete('content-length');
  copy.delete('content-type');
  return copy;
}
