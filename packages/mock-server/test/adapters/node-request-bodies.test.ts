import { connect, type Socket } from 'node:net';
import { expect, test } from 'vitest';
import { createMockServer } from '@restoapi/mock-server/node';

const DISH = JSON.stringify({
  draft_dish: { name: 'Calzone', price: '11.00', organization_id: 1, draft_category_id: 1001 },
});

async function staffToken(url: string): Promise<string> {
  const res = await fetch(`${url}/api/session?login=admin%40pizza.demo&password=demo`, { method: 'POST' });
  return ((await res.json()) as { meta: { token: string } }).meta.token;
}

/** Sends a raw HTTP/1.1 request in pieces, a pause between them, and resolves with the whole answer's text. */
function sendInPieces(url: string, pieces: string[]): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), hostname, async () => {
      for (const piece of pieces) {
        socket.write(piece);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    let answer = '';
    // The answer is whole at the end of its Content-Length: a server may answer before the body it refuses.
    const whole = (): boolean => {
      const end = answer.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(answer)?.[1];
      return end >= 0 && length !== undefined && Buffer.byteLength(answer.slice(end + 4)) >= Number(length);
    };
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
      if (whole()) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

function head(url: string, token: string, extra: string): string {
  return `POST /api/draft_dishes HTTP/1.1\r\nHost: ${new URL(url).host}\r\nAuthorization: Token token="${token}"\r\nContent-Type: application/json\r\nConnection: close\r\n${extra}\r\n`;
}

test('a small body that arrives in pieces (Content-Length) is read whole before it is answered', async () => {
  const { url, close } = await createMockServer();
  try {
    const token = await staffToken(url);
    const answer = await sendInPieces(url, [
      head(url, token, `Content-Length: ${Buffer.byteLength(DISH)}\r\n`),
      DISH.slice(0, 20),
      DISH.slice(20),
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 201 Created\r\n/);
    expect(answer).toContain('"name":"Calzone"');
  } finally {
    await close();
  }
});

test('a chunked body (no Content-Length) is read by the engine and answered the same way', async () => {
  const { url, close } = await createMockServer();
  try {
    const token = await staffToken(url);
    const size = (text: string) => Buffer.byteLength(text).toString(16);
    const [a, b] = [DISH.slice(0, 30), DISH.slice(30)];
    const answer = await sendInPieces(url, [
      head(url, token, 'Transfer-Encoding: chunked\r\n'),
      `${size(a)}\r\n${a}\r\n`,
      `${size(b)}\r\n${b}\r\n0\r\n\r\n`,
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 201 Created\r\n/);
    expect(answer).toContain('"name":"Calzone"');
  } finally {
    await close();
  }
});

test('a client that gives up half-way through its body leaves the server answering the next request', async () => {
  const { url, close } = await createMockServer();
  try {
    const token = await staffToken(url);
    const { hostname, port } = new URL(url);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(head(url, token, `Content-Length: ${Buffer.byteLength(DISH)}\r\n`) + DISH.slice(0, 10));
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 30);
      });
    });
    const res = await fetch(`${url}/api/draft_dishes`, {
      method: 'POST',
      headers: { Authorization: `Token token="${token}"`, 'Content-Type': 'application/json' },
      body: DISH,
    });
    expect(res.status).toBe(201);
    // Only the whole request created a dish: the abandoned one left nothing behind.
    const list = await fetch(`${url}/api/draft_dishes?draft_category_id=1001&per_page=100`, {
      headers: { Authorization: `Token token="${token}"` },
    });
    const names = ((await list.json()) as { draft_dishes: { name: string }[] }).draft_dishes.map((d) => d.name);
    expect(names.filter((name) => name === 'Calzone')).toHaveLength(1);
  } finally {
    await close();
  }
});

test('a body declared larger than the limit is refused with 413 before it is sent', async () => {
  const { url, close } = await createMockServer({ config: { maxBodyBytes: 1024 } });
  try {
    const token = await staffToken(url);
    const answer = await sendInPieces(url, [head(url, token, 'Content-Length: 4096\r\n')]);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"status":"413"');
  } finally {
    await close();
  }
});
