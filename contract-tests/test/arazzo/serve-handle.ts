import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toFetchRequest, writeFetchResponse } from '@restoapi/mock-server/node';

/** A `Request → Response` handler (a mock, or a mutant wrapping one) served over HTTP on 127.0.0.1, port 0. */
export async function serveHandle(
  handle: (request: Request) => Promise<Response>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    // The mutants address the mock as http://mock.local (as in-process runs do).
    handle(toFetchRequest(req, 'http://mock.local'))
      .then((response) => writeFetchResponse(response, res))
      .catch((error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(error));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
