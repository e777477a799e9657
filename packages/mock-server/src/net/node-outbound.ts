/**
 * The Node server's outbound requests: one hop over node:http(s), through an agent that checks the address
 * actually connected to (request-filtering-agent validates the resolved address inside the connection's own
 * lookup), so that neither a DNS name resolving to a private address nor a name that rebinds between two
 * lookups gets round the rule. Redirects are not followed here: the caller follows them hop by hop, each hop
 * through this check again.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import {
  ANY_ADDRESS,
  OutboundRefused,
  PUBLIC_ONLY,
  allowedByName,
  nonPublicRange,
  urlCheckedFetch,
  urlProblem,
  type OutboundPolicy,
  type OutboundRule,
  type OutboundServices,
} from './outbound-policy.js';

/** Options of {@link createOutboundFetch}. */
export interface OutboundFetchOptions {
  /** The resolver the connection uses (tests simulate DNS rebinding with one); `dns.lookup` by default. */
  lookup?: LookupFunction;
  /** The option that changes the rule, named in refusals (`--remote-photos`, `--callbacks`). */
  flag: string;
}

/** Statuses whose answer has no body (a `Response` refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The allowlist entries that are addresses or ranges, for the agent (names are matched before it). */
function addressEntries(rule: OutboundRule): string[] {
  return rule.allowHosts.filter((entry) => entry.includes('/') || /^[\d.]+$|:/.test(entry));
}

/** The library's refusal in the mock's words: which address, of which kind, and the option that allows it. */
function refusal(error: Error, flag: string): Error {
  const address = /DNS lookup (\S+?)\(/.exec(error.message)?.[1];
  if (!address) return error;
  const range = nonPublicRange(address) ?? 'not allowed';
  return new OutboundRefused(
    `address ${address} is not public (${range}; ${flag} public allows public addresses only)`,
  );
}

/**
 * A `fetch` for one kind of outbound request of the Node server, under the operator's rule: `GET`/`POST` with
 * headers and no body, one hop (a 3xx comes back as it is), the answer streamed (never buffered here). A URL or
 * address the rule refuses rejects with {@link OutboundRefused}; nothing is connected to then.
 */
export function createOutboundFetch(rule: OutboundRule, options: OutboundFetchOptions): typeof fetch {
  // Nothing to check on a connection: the global fetch, with its pooled keep-alive connections, as before the rule.
  if (rule.mode === 'any' && !options.lookup) return urlCheckedFetch(rule, options.flag);
  const filtered = addressEntries(rule);
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const problem = urlProblem(url, rule, options.flag);
      if (problem) {
        reject(new OutboundRefused(problem));
        return;
      }
      const signal = init?.signal ?? undefined;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const checked = rule.mode === 'public' && !allowedByName(url, rule);
      const https = url.protocol === 'https:';
      const agentOptions = { keepAlive: false, allowIPAddressList: filtered };
      // A new agent per request: nothing is pooled, so every request makes (and checks) its own connection.
      const agent = checked
        ? https
          ? new RequestFilteringHttpsAgent(agentOptions)
          : new RequestFilteringHttpAgent(agentOptions)
        : false;
      const headers = new Headers(init?.headers);
      const req = (https ? httpsRequest : httpRequest)(
        url,
        {
          method: init?.method ?? 'GET',
          headers: Object.fromEntries(headers),
          agent,
          ...(options.lookup ? { lookup: options.lookup } : {}),
        },
        (res: IncomingMessage) => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 599) {
            res.destroy();
            reject(new Error(`answered with status ${status}`));
            return;
          }
          const answerHeaders = new Headers();
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            try {
              answerHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
            } catch {
              // A header a fetch Headers refuses is left out; the mock reads only a few of them.
            }
          }
          const body = NULL_BODY.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          if (body === null) res.resume();
          resolve(new Response(body, { status, headers: answerHeaders }));
        },
      );
      const abort = (): void => {
        req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', abort, { once: true });
      req.once('close', () => signal?.removeEventListener('abort', abort));
      req.once('error', (error) => reject(refusal(error, options.flag)));
      req.end();
    });
}

/** Whether the server listens on loopback only: everyone who can reach it is on this machine. */
export function isLoopbackHost(host: string): boolean {
  // `::ffff:127.0.0.1` listens on IPv4 loopback through a dual-stack socket: loopback too.
  const bare = host.replace(/^\[(.*)\]$/, '$1').replace(/^::ffff:(?=\d+\.)/i, '');
  if (/^localhost$/i.test(bare)) return true;
  return nonPublicRange(bare) === 'loopback';
}

/**
 * The outbound services of the Node server under the operator's policy: every request through
 * {@link createOutboundFetch}, so the connected address is checked. Callbacks default to `public` on a server
 * reachable from the network and to `any` on loopback, where whoever registers a carrier is on this machine
 * and could reach its loopback anyway.
 */
export function nodeOutbound(policy: Partial<OutboundPolicy>, host: string, lookup?: LookupFunction): OutboundServices {
  const photos = policy.photos ?? PUBLIC_ONLY;
  const callbacks = policy.callbacks ?? (isLoopbackHost(host) ? ANY_ADDRESS : PUBLIC_ONLY);
  const extra = lookup ? { lookup } : {};
  return {
    photos: { rule: photos, fetch: createOutboundFetch(photos, { flag: '--remote-photos', ...extra }) },
    callbacks: { rule: callbacks, fetch: createOutboundFetch(callbacks, { flag: '--callbacks', ...extra }) },
  };
}
