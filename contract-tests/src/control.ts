/**
 * A small client of the mock server's control API (`/__mock`, described in
 * openapi/control/control.yaml). The suite uses it only to set up fixtures
 * (reset, carriers, storefront orders) and to observe what the API cannot
 * show (the published menu, the notification outbox, the callback log). Every call goes through the
 * typed control-API client of @restoapi/openapi.
 */
import { createControlClient, type ControlClient as TypedControlClient } from '@restoapi/openapi';

/** A control-API call that did not answer as expected: the test cannot be set up. */
export class ControlError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

/** A record as the control API returns it (read loosely). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LooseRecord = Record<string, any>;

/** The published (storefront) menu. */
export interface PublishedMenu {
  version: number;
  categories: LooseRecord[];
  dishes: LooseRecord[];
}

export interface ControlAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface NotificationEntry {
  id: number;
  channel: 'sms' | 'email';
  to: string;
  order_id: number | null;
  reason: string;
  text: string;
}

export interface CallbackEntry {
  id: number;
  carrier_id: number;
  order_id: number;
  type: string;
  query: Record<string, string>;
  state: 'pending' | 'delivered' | 'failed';
}

/** One call of the control API and its answer; `path` is the path of the control document (`/__mock/…`). */
export interface ControlCall {
  method: string;
  url: string;
  path: string;
  body?: string;
  status: number;
  answer: string;
}

/** The mock's root, where the typed client's paths (`/__mock/…`) start; re-rooted at the configured base. */
const CONTROL_PREFIX = '/__mock';

/** The control API of the implementation under test, at `baseUrl` (`…/__mock` on the mock server). */
export class ControlClient {
  /** The typed client every call goes through; its paths start with `/__mock`. */
  readonly typed: TypedControlClient;
  /**
   * Hears every control call with its answer (a stateful sequence records them, so that its Arazzo workflow
   * carries the control steps it needs: reset, clock, carriers, storefront orders).
   */
  onCall: ((call: ControlCall) => void) | undefined;

  constructor(
    readonly baseUrl: string,
    private readonly fetchImpl: typeof fetch,
  ) {
    this.typed = createControlClient({ baseUrl: 'http://control.invalid', fetch: (request) => this.send(request) });
  }

  /** Sends a request of the typed client to the configured base, which need not be the mock's `/__mock`. */
  private async send(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const target = `${this.baseUrl}${url.pathname.slice(CONTROL_PREFIX.length)}${url.search}`;
    const body = request.body ? await request.text() : undefined;
    try {
      const response = await this.fetchImpl(target, {
        method: request.method,
        ...(body !== undefined ? { body, headers: { 'Content-Type': 'application/json' } } : {}),
      });
      if (this.onCall)
        this.onCall({
          method: request.method,
          url: target,
          path: `${CONTROL_PREFIX}${url.pathname.slice(CONTROL_PREFIX.length)}`,
          ...(body !== undefined ? { body } : {}),
          status: response.status,
          answer: await response.clone().text(),
        });
      return response;
    } catch (error) {
      throw new ControlError(`control API ${request.method} ${url.pathname} unreachable: ${(error as Error).message}`);
    }
  }

  /** Any control call, untyped, with the path below the control base (`/config`). */
  async call(
    method: string,
    path: string,
    body?: unknown,
    query?: Record<string, string | number>,
  ): Promise<ControlAnswer> {
    const { data, error, response } = await this.typed.request(
      method.toLowerCase() as 'get',
      `${CONTROL_PREFIX}${path}` as '/__mock/config',
      { ...(body !== undefined ? { body } : {}), params: { query } } as never,
    );
    return { status: response.status, body: data ?? error };
  }

  /** A typed call's answer, or a {@link ControlError} when its status is not one of `statuses`. */
  private check<T>(
    what: string,
    statuses: number[],
    result: { data?: T; error?: unknown; response: Response },
  ): { status: number; data: T | undefined; body: unknown } {
    const { status } = result.response;
    const body = result.data ?? result.error;
    if (!statuses.includes(status)) {
      const detail = typeof body === 'string' ? body : JSON.stringify(body);
      throw new ControlError(`control API ${what} answered ${status}: ${String(detail).slice(0, 300)}`, status);
    }
    return { status, data: result.data, body };
  }

  /** Back to the demo world (or an empty one). */
  async reset(seed: 'demo' | 'empty' = 'demo'): Promise<void> {
    this.check('POST /reset', [200], await this.typed.POST('/__mock/reset', { body: { seed } }));
  }

  /** Sets the virtual clock (and freezes or unfreezes it). */
  async setClock(now: string, frozen?: boolean): Promise<void> {
    const body = { now, ...(frozen === undefined ? {} : { frozen }) };
    this.check('PUT /clock', [200], await this.typed.PUT('/__mock/clock', { body }));
  }

  /** Moves virtual time forward; due jobs and callback attempts run. */
  async advanceClock(ms: number): Promise<void> {
    this.check('POST /clock/advance', [200], await this.typed.POST('/__mock/clock/advance', { body: { ms } }));
  }

  /** Changes settings of the implementation (`PUT /config`). */
  async updateConfig(settings: Record<string, unknown>): Promise<void> {
    this.check('PUT /config', [200], await this.typed.PUT('/__mock/config', { body: settings }));
  }

  /** Registers a carrier; answers it with its id. */
  async registerCarrier(carrier: {
    callback_url: string;
    restaurant_ids?: number[] | null;
    name?: string;
  }): Promise<{ id: number }> {
    const answer = this.check(
      'POST /carriers',
      [200, 201],
      await this.typed.POST('/__mock/carriers', { body: carrier }),
    );
    return answer.data!.carrier;
  }

  /** The callback log, filtered. */
  async callbacks(query: Record<string, string | number> = {}): Promise<CallbackEntry[]> {
    const result = await this.typed.GET('/__mock/callbacks', { params: { query: query as never } });
    return this.check('GET /callbacks', [200], result).data!.callbacks as CallbackEntry[];
  }

  /** The SMS and e-mail outbox, filtered. */
  async notifications(query: Record<string, string | number> = {}): Promise<NotificationEntry[]> {
    const result = await this.typed.GET('/__mock/notifications', { params: { query: query as never } });
    return this.check('GET /notifications', [200], result).data!.notifications as NotificationEntry[];
  }

  /** The published (storefront) menu, or undefined when nothing was published. */
  async publishedMenu(organizationId: number): Promise<PublishedMenu | undefined> {
    const result = await this.typed.GET('/__mock/organizations/{id}/menu', {
      params: { path: { id: organizationId } },
    });
    const answer = this.check(`GET /organizations/${organizationId}/menu`, [200, 404], result);
    return answer.status === 404 ? undefined : (answer.data!.menu as PublishedMenu);
  }

  /** Places an order as the storefront would; answers the raw status and body (201 or 422). */
  async placeOrder(order: Record<string, unknown>): Promise<ControlAnswer> {
    const result = await this.typed.POST('/__mock/orders', { body: order as never });
    const { status, body } = this.check('POST /orders', [200, 201, 422], result);
    return { status, body };
  }
}
