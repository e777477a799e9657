/**
 * The proxy's HTTP mechanics: sends a client's request to the upstream with its method, path, query,
 * headers and body bytes unchanged (less the hop-by-hop headers, which belong to one connection), and
 * hands back the upstream's answer as it came. Bodies are held up to a limit for checking; larger ones stream.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

/** Headers of one connection, never forwarded (RFC 9110 7.6.1), besides those a `Connection` header names. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * `rawHeaders` without the hop-by-hop ones, as a flat `[name, value, …]` list (names keep their case,
 * repeated headers stay separate). `host`, when given, replaces the `Host` header.
 */
export function endToEndHeaders(raw: readonly string[], host?: string): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection')
      for (const token of raw[i + 1]!.split(',')) named.add(token.trim().toLowerCase());
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name) || (host !== undefined && name === 'host')) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  if (host !== undefined) out.unshift('Host', host);
  return out;
}

/** A body read up to a limit: all of it, or (when larger) a stream that replays it from the first byte. */
export type HeldBody = { bytes: Buffer } | { stream: Readable };

/** Reads a stream up to `limit` bytes: the whole body when it fits, else a replaying stream of all of it. */
export async function holdBody(source: Readable, limit: number): Promise<HeldBody> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) };
    chunks.push(next.value);
    size += next.value.length;
    if (size > limit) {
      async function* replay(): AsyncGenerator<Buffer> {
        yield* chunks;
        for (;;) {
          const more = await iterator.next();
          if (more.done) return;
          yield more.value;
        }
      }
      return { stream: Readable.from(replay(), { objectMode: false }) };
    }
  }
}

/** The body bytes with their `Content-Encoding` undone, for checking; `undefined` when that fails or exceeds `limit`. */
export function decodedBody(bytes: Buffer, encoding: string | undefined, limit: number): Buffer | undefined {
  const coding = encoding?.trim().toLowerCase();
  try {
    if (!coding || coding === 'identity') return bytes;
    if (coding === 'gzip' || coding === 'x-gzip') return gunzipSync(bytes, { maxOutputLength: limit });
    if (coding === 'deflate') return inflateSync(bytes, { maxOutputLength: limit });
    if (coding === 'br') return brotliDecompressSync(bytes, { maxOutputLength: limit });
  } catch {
    return undefined;
  }
  return undefined;
}

/** Why the upstream gave no answer. */
export class UpstreamError extends Error {
  constructor(
    readonly kind: 'unreachable' | 'timeout',
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** Sends requests to one upstream over kept-alive connections. */
export class Forwarder {
  readonly #base: URL;
  readonly #agent: HttpAgent;

  constructor(
    upstream: URL,
    private readonly timeoutMs: number,
  ) {
    this.#base = upstream;
    this.#agent =
      upstream.protocol === 'https:' ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  /**
   * Sends one request; resolves with the upstream's answer (its body not yet read), or rejects with an
   * {@link UpstreamError} when the upstream cannot be reached or stays silent for the timeout.
   */
  send(
    method: string,
    pathAndQuery: string,
    rawHeaders: readonly string[],
    body: HeldBody | undefined,
    signal: AbortSignal,
    retried = false,
  ): Promise<IncomingMessage> {
    const base = this.#base;
    const prefix = base.pathname.replace(/\/$/, '');
    const send = base.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const request = send(
        {
          protocol: base.protocol,
          hostname: base.hostname.replace(/^\[|\]$/g, ''),
          port: base.port || undefined,
          method,
          path: prefix + pathAndQuery,
          headers: endToEndHeaders(rawHeaders, base.host) as unknown as Record<string, string>,
          agent: this.#agent,
          signal,
        },
        (answer) => {
          // From here on the timeout is for the body: the socket stays silent that long.
          resolve(answer);
        },
      );
      request.setTimeout(this.timeoutMs, () => {
        request.destroy(
          new UpstreamError(
            'timeout',
            `the upstream sent nothing for ${this.timeoutMs} ms (--timeout ${this.timeoutMs})`,
          ),
        );
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the upstream closed just as it was reused: the request never reached it,
        // so it is sent once more on a fresh one (when its body is still at hand), as node's docs advise.
        const stale = request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        if (stale && !retried && !(body && 'stream' in body) && !signal.aborted)
          resolve(this.send(method, pathAndQuery, rawHeaders, body, signal, true));
        else if (error instanceof UpstreamError) reject(error);
        else if (signal.aborted) reject(new UpstreamError('unreachable', 'the client went away'));
        else
          reject(
            new UpstreamError(
              'unreachable',
              `cannot reach the upstream ${base.origin} (${error.code ?? error.message})`,
            ),
          );
      });
      if (!body) request.end();
      else if ('bytes' in body) request.end(body.bytes.byteLength > 0 ? body.bytes : undefined);
      else {
        body.stream.on('error', (error) => request.destroy(error));
        body.stream.pipe(request);
      }
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.#agent.destroy();
  }
}
