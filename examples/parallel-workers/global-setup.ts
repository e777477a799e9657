/**
 * Starts ONE mock server for the whole run and hands its URL to every worker (`inject('mockUrl')`).
 * Every worker works in its own session of it, so they never see each other's data.
 */
import { writeFile } from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { createMockServer } from '@restoapi/mock-server/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the one mock server of the run. */
    mockUrl: string;
  }
}

/** Vitest's global setup: runs once, before any worker starts; the function it returns runs after all. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await createMockServer({ port: 0 });
  project.provide('mockUrl', server.url);
  return async () => {
    // The repository's test of this example reads which sessions the workers used.
    const report = process.env.PARALLEL_WORKERS_REPORT;
    if (report) await writeFile(report, JSON.stringify(server.mock.sessions.list()));
    await server.close();
  };
}
