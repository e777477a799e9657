import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MeterProvider } from '@opentelemetry/api';

/** A Prometheus endpoint over the kit's OpenTelemetry metrics. */
export interface PrometheusEndpoint {
  /** The provider to give the agent (`createCarrierAgent({ meterProvider })`). */
  provider: MeterProvider;
  /** Where Prometheus scrapes, e.g. `http://127.0.0.1:9464/metrics`. */
  url: string;
  /** One scrape, as Prometheus would read it. */
  scrape(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Serves the kit's metrics for Prometheus at `/metrics` (port 0: a free one) with the OpenTelemetry SDK and
 * its Prometheus exporter, which the application installs (`@opentelemetry/sdk-metrics`,
 * `@opentelemetry/exporter-prometheus`); the simulator's `--metrics` uses it.
 * @example
 * const prometheus = await startPrometheus({ port: 9464 });
 * const agent = createCarrierAgent({ baseUrl, meterProvider: prometheus.provider });
 */
export async function startPrometheus(options: { port?: number; host?: string } = {}): Promise<PrometheusEndpoint> {
  const missing = (error: unknown): never => {
    throw new Error(
      'metrics need @opentelemetry/sdk-metrics and @opentelemetry/exporter-prometheus beside the kit ' +
        `(npm install @opentelemetry/sdk-metrics @opentelemetry/exporter-prometheus): ${String(error)}`,
    );
  };
  const { MeterProvider } = await import('@opentelemetry/sdk-metrics').catch(missing);
  const { PrometheusExporter } = await import('@opentelemetry/exporter-prometheus').catch(missing);
  const exporter = new PrometheusExporter({ preventServerStart: true, withoutTargetInfo: true });
  const provider = new MeterProvider({ readers: [exporter] });
  const server = createServer((request, response) => {
    if (request.url?.split('?')[0] === '/metrics') exporter.getMetricsRequestHandler(request, response);
    else response.writeHead(404).end('metrics are at /metrics\n');
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const url = `http://${host}:${(server.address() as AddressInfo).port}/metrics`;
  return {
    provider,
    url,
    scrape: async () => (await fetch(url)).text(),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await provider.shutdown();
    },
  };
}
