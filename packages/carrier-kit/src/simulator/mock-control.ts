/** Chaos options the mock server applies to a carrier's callbacks (its control API's `CarrierChaos`). */
export interface CarrierChaos {
  /** Probability that a callback is sent twice. */
  duplicate?: number;
  /** Virtual milliseconds every callback waits before its first attempt. */
  delayMs?: number;
  /** Swap consecutive callbacks. */
  reorder?: boolean;
  /** Seed of the chance decisions. */
  seed?: number;
}

/** A carrier registration (`POST /__mock/carriers` of the mock's control API). */
export interface CarrierRegistration {
  callback_url: string;
  name?: string;
  /** Restaurants whose delivery orders go to the carrier; `null` for all. */
  restaurant_ids?: number[] | null;
  /** `whsec_…`: the mock then signs its callbacks. */
  secret?: string | null;
  chaos?: CarrierChaos | null;
}

/** A carrier as the mock lists it (`GET /__mock/carriers`). */
export interface RegisteredCarrier {
  id: number;
  name: string;
  callback_url: string;
  restaurant_ids: number[] | null;
}

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
 * A minimal client of the mock server's control API (`/__mock`), as `openapi/control/control.yaml` describes it.
 * @example
 * const control = createMockControl('http://127.0.0.1:4010');
 * const id = await control.registerCarrier({ callback_url: 'http://127.0.0.1:4020/callbacks' });
 */
export function createMockControl(
  controlUrl: string,
  fetchImpl: typeof fetch = (input, init) => fetch(input, init),
): MockControl {
  const base = controlUrl.replace(/\/+$/, '');
  // fetch says only "fetch failed" when nothing answers; the address is what a user needs to see.
  const call = (path: string, init?: RequestInit): Promise<Response> =>
    fetchImpl(`${base}${path}`, init).catch((error: unknown) => {
      throw new ServiceUnreachableError(`${base}${path}`, error);
    });
  const fail = async (response: Response, what: string): Promise<never> => {
    const body = (await response.json().catch(() => undefined)) as
      { errors?: { detail?: string; source?: { pointer?: string } }[] } | undefined;
    const details = body?.errors
      ?.map((e) => `${e.source?.pointer ? `${e.source.pointer}: ` : ''}${e.detail ?? ''}`)
      .join('; ');
    throw new Error(
      `${what} at ${response.url || base} failed with ${response.status}${details ? `: ${details}` : ''}`,
    );
  };
  return {
    async registerCarrier(registration) {
      const response = await call('/__mock/carriers', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(registration),
      });
      if (response.status !== 201) return fail(response, 'registering the carrier');
      const { carrier } = (await response.json()) as { carrier: { id: number } };
      return carrier.id;
    },
    async listCarriers() {
      const response = await call('/__mock/carriers');
      if (response.status !== 200) return fail(response, 'listing the carriers');
      const { carriers } = (await response.json()) as { carriers: RegisteredCarrier[] };
      return carriers.sort((a, b) => a.id - b.id);
    },
    async deleteCarrier(id) {
      const response = await call(`/__mock/carriers/${id}`, { method: 'DELETE' });
      if (response.status !== 204 && response.status !== 404) await fail(response, 'removing the carrier');
    },
  };
}
