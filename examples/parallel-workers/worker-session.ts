/**
 * What each test worker uses: its own session of the one mock, named after the worker, and clients that
 * send `X-Mock-Session` on every call. Nothing else changes: same URL, same logins, same SDK.
 */
import { inject } from 'vitest';
import { createControlClient, type ControlClient } from '@restoapi/mock-server';
import { createRawClient, type RawMainClient } from '@restoapi/sdk';

/** The clients of one worker's session. */
export interface WorkerSession {
  /** The session's name, e.g. `worker-2`. */
  name: string;
  /** The mock's control API, acting on this session only (reset, clock, storefront orders…). */
  control: ControlClient;
  /** Signs in in this session and returns a main-API client for it. */
  login(user: string): Promise<RawMainClient>;
}

/** The session of the current worker: `VITEST_POOL_ID` numbers the workers of a run (1, 2, 3…). */
export function workerSession(): WorkerSession {
  const baseUrl = inject('mockUrl');
  const name = `worker-${process.env.VITEST_POOL_ID ?? '1'}`;
  const headers = { 'X-Mock-Session': name };
  return {
    name,
    control: createControlClient({ baseUrl, session: name }),
    async login(user) {
      const res = await fetch(`${baseUrl}/api/session?login=${encodeURIComponent(user)}&password=demo`, {
        method: 'POST',
        headers,
      });
      if (res.status !== 200) throw new Error(`login ${user} in ${name} failed: ${res.status}`);
      const { meta } = (await res.json()) as { meta: { token: string } };
      return createRawClient({ baseUrl, token: meta.token, headers });
    },
  };
}

/** Waits until `count` workers hold a session at the same time, so the specs really overlap. */
export async function untilWorkersOverlap(control: ControlClient, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { data } = await control.GET('/__mock/sessions');
    if (data!.sessions.filter((session) => session.name.startsWith('worker-')).length >= count) return;
    if (Date.now() > deadline) throw new Error(`fewer than ${count} workers ran at once`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
