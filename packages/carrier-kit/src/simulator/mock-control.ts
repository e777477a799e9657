import { createControlClient, type controlComponents } from '@restoapi/openapi';

type C = controlComponents['schemas'];

/** Chaos options the mock server applies to a carrier's callbacks (its control API's `CarrierChaos`). */
export type CarrierChaos = C['CarrierChaos'];

/** A carrier registration (`POST /__mock/carriers` of the mock's control API: `CarrierCreate`). */
export type CarrierRegistration = C['CarrierCreate'];

/** A carrier as the mock lists it (`GET /__mock/carriers`: `Carrier`). */
export type RegisteredCarrier = C['Carrier'];

/** The service (or its control API) did not answer at all: nothing listens there, or the host is unknown. */
export class ServiceUnreachableError extends Error {
  constructor(
    /** The address that did not answer. */
    readonly url: string,
    cause: unknown,
  ) {
    const reason = (cause as { cause?: { code?: string; message?: string } })?.cause;
    super(`cannot reach ${url} (${reason?.code ?? reason?.message ?? (cause as Error)?.message ?? String(cause)})`, {
      cause,
    });
    this.name = 'ServiceUnreachableError';
  }
}

/** The few calls of the mock's control API the simulator needs; no dependency on the mock package. */
export interface MockControl {
  /** Registers the carrier; returns its id. */
  registerCarrier(registration: CarrierRegistration): Promise<number>;
  /** The registered carriers, in registration order. */
  listCarriers(): Promise<RegisteredCarrier[]>;
  /** Unregisters it (its pending callbacks are dropped). */
  deleteCarrier(id: number): Promise<void>;
}

/**
 * The few calls the simulator needs, over the typed control-API client of @restoapi/openapi
 * (`openapi/control/control.yaml`).
 * @example
 * const control = createMockControl('http://127.0.0.1:4010');
 * const id = await control.registerCarrier({ callback_url: 'http://127.0.0.1:4020/callbacks' });
 */
export function createMockControl(
  controlUrl: string,
  fetchImpl: typeof fetch = (input, init) => fetch(input, init),
  /** The mock session to register in (`X-Mock-Session`); the default session when absent. */
  session?: string,
  /** The mock's control token (`restoapi-mock --control-token`); none when the control API is open. */
  token?: string,
): MockControl {
  const base = controlUrl.replace(/\/+$/, '');
  const client = createControlClient({
    baseUrl: base,
    ...(session !== undefined ? { session } : {}),
    ...(token ? { token } : {}),
    // fetch says only "fetch failed" when nothing answers; the address is what a user needs to see.
    fetch: (request) =>
      fetchImpl(request).catch((error: unknown) => {
        throw new ServiceUnreachableError(request.url, error);
      }),
  });
  const fail = (response: Response, error: unknown, what: string): never => {
    const body = error as { errors?: { detail?: string; source?: { pointer?: string } }[] } | undefined;
    const details = body?.errors
      ?.map((e) => `${e.source?.pointer ? `${e.source.pointer}: ` : ''}${e.detail ?? ''}`)
      .join('; ');
    throw new Error(
      `${what} at ${response.url || base} failed with ${response.status}${details ? `: ${details}` : ''}`,
    );
  };
  return {
    async registerCarrier(registration) {
      const { data, error, response } = await client.POST('/__mock/carriers', { body: registration });
      if (response.status !== 201 || !data) return fail(response, error, 'registering the carrier');
      return data.carrier.id;
    },
    async listCarriers() {
      const { data, error, response } = await client.GET('/__mock/carriers');
      if (response.status !== 200 || !data) return fail(response, error, 'listing the carriers');
      return data.carriers.sort((a, b) => a.id - b.id);
    },
    async deleteCarrier(id) {
      const { error, response } = await client.DELETE('/__mock/carriers/{id}', { params: { path: { id } } });
      if (response.status !== 204 && response.status !== 404) fail(response, error, 'removing the carrier');
    },
  };
}
