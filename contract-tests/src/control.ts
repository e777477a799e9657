/**
 * A small client of the mock server's control API (`/__mock`, described in
 * openapi/control/control.yaml). The suite uses it only to set up fixtures
 * (reset, carriers, storefront orders) and to observe what the API cannot
 * show (the published menu, the notification outbox, the callback log).
 */

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

export class ControlClient {
  constructor(
    readonly baseUrl: string,
    private readonly fetchImpl: typeof fetch,
  ) {}

  async call(
    method: string,
    path: string,
    body?: unknown,
    query?: Record<string, string | number>,
  ): Promise<ControlAnswer> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) url.searchParams.set(key, String(value));
    let response: Response;
    try {
      response = await this.fetchImpl(url.toString(), {
        method,
        ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } } : {}),
      });
    } catch (error) {
      throw new ControlError(`control API ${method} ${path} unreachable: ${(error as Error).message}`);
    }
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // keep the text
    }
    return { status: response.status, body: parsed };
  }

  private async expect(
    method: string,
    path: string,
    statuses: number[],
    body?: unknown,
    query?: Record<string, string | number>,
  ): Promise<ControlAnswer> {
    const answer = await this.call(method, path, body, query);
    if (!statuses.includes(answer.status)) {
      const detail = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      throw new ControlError(
        `control API ${method} ${path} answered ${answer.status}: ${String(detail).slice(0, 300)}`,
        answer.status,
      );
    }
    return answer;
  }

  /** Back to the demo world (or an empty one). */
  async reset(seed: 'demo' | 'empty' = 'demo'): Promise<void> {
    await this.expect('POST', '/reset', [200], { seed });
  }

  async setClock(now: string, frozen?: boolean): Promise<void> {
    await this.expect('PUT', '/clock', [200], { now, ...(frozen === undefined ? {} : { frozen }) });
  }

  /** Moves virtual time forward; due jobs and callback attempts run. */
  async advanceClock(ms: number): Promise<void> {
    await this.expect('POST', '/clock/advance', [200], { ms });
  }

  async updateConfig(settings: Record<string, unknown>): Promise<void> {
    await this.expect('PUT', '/config', [200], settings);
  }

  async registerCarrier(carrier: {
    callback_url: string;
    restaurant_ids?: number[] | null;
    name?: string;
  }): Promise<{ id: number }> {
    const answer = await this.expect('POST', '/carriers', [200, 201], carrier);
    return answer.body.carrier as { id: number };
  }

  async callbacks(query: Record<string, string | number> = {}): Promise<CallbackEntry[]> {
    return (await this.expect('GET', '/callbacks', [200], undefined, query)).body.callbacks as CallbackEntry[];
  }

  async notifications(query: Record<string, string | number> = {}): Promise<NotificationEntry[]> {
    return (await this.expect('GET', '/notifications', [200], undefined, query)).body
      .notifications as NotificationEntry[];
  }

  /** The published (storefront) menu, or undefined when nothing was published. */
  async publishedMenu(organizationId: number): Promise<PublishedMenu | undefined> {
    const answer = await this.expect('GET', `/organizations/${organizationId}/menu`, [200, 404]);
    return answer.status === 404 ? undefined : answer.body.menu;
  }

  /** Places an order as the storefront would; answers the raw status and body (201 or 422). */
  async placeOrder(order: Record<string, unknown>): Promise<ControlAnswer> {
    return this.expect('POST', '/orders', [200, 201, 422], order);
  }
}
