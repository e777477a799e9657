import { afterEach, describe, expect, test } from 'vitest';
import { ConflictError, NotFoundError, PermissionDeniedError, type Order } from '@restoapi/sdk';
import { FRIDAY_EVENING, margheritaOrder, startMock, TRANSPORTS, type MockTarget } from '../support/mock-target.js';

describe.each(TRANSPORTS)('orders over %s', (transport) => {
  let target: MockTarget;
  afterEach(() => target?.close());

  /** Places `n` storefront orders (to have several pages). */
  async function placeOrders(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const { response } = await target.control.POST('/__mock/orders', { body: margheritaOrder() });
      if (response.status !== 201) throw new Error(`placing an order failed: ${response.status}`);
    }
  }

  test('list returns one page with its meta; array filters go on the wire as repeated keys', async () => {
    target = await startMock(transport);
    const seen: string[] = [];
    const api = await target.signIn('dispatcher@demo', {
      fetch: (input, init) => {
        seen.push(typeof input === 'string' ? input : input.url);
        return (target.fetch ?? globalThis.fetch)(input, init);
      },
    });
    const page = await api.orders.list({
      restaurant_id: [11, 12],
      status: ['delivery', 'pending', 'cooking'],
      per_page: 2,
      sort_by: 'id',
    });
    expect(page.meta).toEqual({ page: 1, page_count: 2, per_page: 2, count: 3 });
    expect(page.orders.map((o) => o.id)).toEqual([5001, 5002]);
    const query = new URL(seen.at(-1)!).search;
    expect(query).toContain('restaurant_id=11&restaurant_id=12');
    expect(query).toContain('status=delivery&status=pending&status=cooking');
    expect(new URL(seen.at(-1)!).searchParams.getAll('restaurant_id')).toEqual(['11', '12']);
  });

  test('pages() walks page by page and iterate() yields every order of every page', async () => {
    target = await startMock(transport, { frozenAt: FRIDAY_EVENING });
    await placeOrders(4);
    const api = await target.signIn('admin@pizza.demo');
    const first = await api.orders.list({ per_page: 3 });
    const total = first.meta.count;
    expect(total).toBe(9);

    const pages: number[][] = [];
    for await (const page of api.orders.pages({ per_page: 3, sort_by: 'id' })) pages.push(page.orders.map((o) => o.id));
    expect(pages).toHaveLength(3);
    expect(pages.flat()).toHaveLength(total);

    const seen: Order[] = [];
    for await (const order of api.orders.iterate({ per_page: 2, sort_by: 'id' })) seen.push(order);
    expect(seen.map((o) => o.id)).toEqual(pages.flat());
    expect(new Set(seen.map((o) => o.id)).size).toBe(total);

    // Starting from a later page, and stopping early, both work.
    const fromSecond: number[] = [];
    for await (const page of api.orders.pages({ per_page: 3, page: 2, sort_by: 'id' })) fromSecond.push(page.meta.page);
    expect(fromSecond).toEqual([2, 3]);
    for await (const order of api.orders.iterate({ per_page: 1 })) {
      expect(order.id).toBeGreaterThan(0);
      break;
    }
    // An empty result ends at once.
    const none: Order[] = [];
    for await (const order of api.orders.iterate({ client_id: [424242] })) none.push(order);
    expect(none).toEqual([]);
  });

  test('get, items, buddies and the receipts', async () => {
    target = await startMock(transport);
    const api = await target.signIn('admin@pizza.demo');
    const { order, restaurants, couriers } = await api.orders.get(5001);
    expect(order).toMatchObject({ number: 'PP-5001', total: '17.50', status: 'delivery', courier_id: 501 });
    expect(restaurants.map((r) => r.id)).toEqual([11]);
    expect(couriers.map((c) => c.id)).toEqual([501]);

    const { items } = await api.orders.items(5001);
    expect(items.map((i) => i.name)).toEqual(['Margherita', 'Cola 0.33 l']);
    const { buddies } = await api.orders.buddies(5001);
    expect(buddies[0]!.item_ids).toEqual(items.map((i) => i.id));

    const pdf = await api.orders.receiptPdf(5001);
    expect(pdf).toBeInstanceOf(Blob);
    expect(new TextDecoder().decode(new Uint8Array(await pdf.slice(0, 5).arrayBuffer()))).toBe('%PDF-');
    const html = await api.orders.receiptHtml(5001);
    expect(html).toContain('PP-5001');
    await expect(api.orders.get(5005)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('update assigns a courier without an SMS; confirm and setStatus move the order', async () => {
    target = await startMock(transport, { frozenAt: FRIDAY_EVENING });
    const seen: string[] = [];
    const api = await target.signIn('admin@pizza.demo', {
      fetch: (input, init) => {
        const request = typeof input === 'string' ? new Request(input, init) : input;
        seen.push(`${request.method} ${request.url}`);
        return (target.fetch ?? globalThis.fetch)(input, init);
      },
    });
    const assigned = await api.orders.update(
      5002,
      { courier_id: 502, description: 'Leave at the door' },
      { sendSms: false },
    );
    expect(assigned.order).toMatchObject({ courier_id: 502, description: 'Leave at the door' });
    expect(seen.at(-1)).toMatch(/^PUT .*\/api\/orders\/5002\?send_sms=false$/);

    const confirmed = await api.orders.confirm(5002);
    expect(confirmed.order.restaurant_confirmed_at).not.toBeNull();

    const accepted = await api.orders.setStatus(5002, 'accepted', { sendSms: false });
    expect(accepted.order.status).toBe('accepted');
    const put = seen.findLast((line) => line.startsWith('PUT') && line.includes('/status'))!;
    expect(new URL(put.slice(4)).searchParams.toString()).toBe('status=accepted&send_sms=false');

    const courier = await target.signIn('courier2@pizza.demo');
    const courierConfirmed = await courier.orders.confirm(5002);
    expect(courierConfirmed.order.courier_confirmed_at).not.toBeNull();
    const complete = await courier.orders.setStatus(5002, 'complete');
    expect(complete.order.status).toBe('complete');
  });

  test('leaving a terminal status is a ConflictError; a dispatcher may not confirm', async () => {
    target = await startMock(transport);
    const api = await target.signIn('admin@pizza.demo');
    const conflict = await api.orders.setStatus(5003, 'cooking').catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect((conflict as ConflictError).busy).toBeUndefined();
    expect((conflict as ConflictError).operation).toBe('PUT /api/orders/{id}/status');

    const dispatcher = await target.signIn('dispatcher@demo');
    const result = await dispatcher.orders.confirm(5001, { throwOnError: false });
    expect(result.error).toBeInstanceOf(PermissionDeniedError);
    if (result.error?.status === 403 && target.ours) expect(result.error.errors[0]?.code).toBe('forbidden');
  });
});
