import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { EngineResponse, toFetchResponse } from '../../src/engine/engine-request.js';
import { writeEngineResponse, writeFetchResponse } from '../../src/node.js';

// The node adapter writes an engine answer's head itself; it must put exactly the header lines on the wire
// that writing the fetch Response of the same answer puts there, for any mix of names an answer may hold.

/** The raw header lines (without node's own Date, Connection and Keep-Alive) a writer puts on the wire. */
async function headLines(write: (res: ServerResponse) => void | Promise<void>): Promise<string[]> {
  const server = createServer((_req, res) => void write(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<string[]>((resolve, reject) => {
      request({ port, host: '127.0.0.1', path: '/' }, (res) => {
        res.resume();
        const lines: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!.toLowerCase();
          if (!['date', 'connection', 'keep-alive'].includes(name))
            lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        }
        res.on('end', () => resolve(lines));
      })
        .on('error', reject)
        .end();
    });
  } finally {
    server.close();
  }
}

const answers: Record<string, string>[] = [
  { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': 'req_1' },
  { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': 'req_2', Location: '/api/draft_dishes/7' },
  {
    'Content-Type': 'application/json',
    'x-b': ' padded\t',
    'X-A': 'one',
    'x-a': 'two',
    'Set-Cookie': 'a=1',
    'set-cookie': 'b=2',
    ETag: '"v"',
  },
  { Vary: 'Accept', 'Content-Type': 'text/plain' },
];

/** The CORS headers the adapter writes first: none, `Vary` alone, an allowed origin. */
const LEADING: Record<string, string>[] = [
  {},
  { Vary: 'Origin' },
  { Vary: 'Origin', 'Access-Control-Allow-Origin': 'http://a.test' },
];

for (const [index, headers] of answers.entries()) {
  test(`answer ${index + 1}: the same header lines as the fetch Response of it, with and without CORS headers first`, async () => {
    for (const leading of LEADING) {
      const answer = new EngineResponse(201, headers, '{"ok":true}');
      const mine = await headLines((res) => {
        expect(writeEngineResponse(answer, res, leading)).toBe(true);
      });
      const theirs = await headLines(async (res) => {
        for (const name in leading) res.setHeader(name, leading[name]!);
        await writeFetchResponse(toFetchResponse(answer), res);
      });
      expect(mine, JSON.stringify({ headers, leading })).toEqual(theirs);
    }
  });
}
