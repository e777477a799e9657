/**
 * Where an example finds the API: `RESTOAPI_BASE_URL` when set, otherwise a demo mock started
 * in this process, so every example runs out of the box with `npm run <name>`.
 */
import { createMockServer } from '@restoapi/mock-server/node';

/** A base URL and a function that releases whatever was started for it. */
export interface ApiTarget {
  baseUrl: string;
  /** True when the example started its own demo mock. */
  embedded: boolean;
  close(): Promise<void>;
}

/** Uses `RESTOAPI_BASE_URL`, or starts the demo mock on a free loopback port. */
export async function apiTarget(env: NodeJS.ProcessEnv = process.env): Promise<ApiTarget> {
  if (env.RESTOAPI_BASE_URL) return { baseUrl: env.RESTOAPI_BASE_URL, embedded: false, close: async () => {} };
  // Imports finish in a few seconds of real time so the progress bar has something to show.
  const server = await createMockServer({ port: 0, config: { importDurationMs: 2_000 } });
  return { baseUrl: server.url, embedded: true, close: () => server.close() };
}
