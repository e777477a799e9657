import { afterEach, describe, expect, test } from 'vitest';
import {
  ConflictError,
  ImportJob,
  PermissionDeniedError,
  type ImportJobState,
  type MenuImportBody,
  type OrderImportBody,
} from '@restoapi/sdk';
import { FRIDAY_EVENING, startMock, TRANSPORTS, type MockTarget } from '../support/mock-target.js';

const MENU: MenuImportBody = {
  categories: [{ name: 'Pizza', external_id: 'pizza', menu_order: 1 }],
  dishes: [
    { name: 'Margherita', price: 9.5, category_external_id: 'pizza', external_id: 'pp-margherita' },
    { name: 'Quattro Formaggi', price: 12.9, category_external_id: 'pizza', external_id: 'pp-formaggi' },
  ],
  // Partial config: the other flag takes its documented default.
  config: { publish_menu: true },
};

describe.each(TRANSPORTS)('imports over %s', (transport) => {
  let target: MockTarget;
  afterEach(() => target?.close());
  // The id's type and the name of a finished job are not shown by the spec: the independent implementation sends
  // numbers and `finished` where the mock sends strings and `done`.
  const sent = (id: string): string | number => (target.ours ? id : Number(id));
  const finished = (): string => (target.ours ? 'done' : 'finished');

  test('menu import: the job handle waits for the end and reports job_percent as it goes', async () => {
    target = await startMock(transport, { config: { importDurationMs: 1_000 } });
    const api = await target.signIn('admin@pizza.demo');
    expect(await api.imports.menuState(1)).toMatchObject({ status: 'idle', job_id: null });

    const job = await api.imports.menu(1, MENU);
    expect(job).toBeInstanceOf(ImportJob);
    expect(job).toMatchObject({ kind: 'menu', organizationId: 1, id: expect.any(String) });

    const progress: ImportJobState[] = [];
    const done = await job.wait({ intervalMs: 40, onProgress: (state) => progress.push(state) });
    expect(done).toMatchObject({ status: 'idle', job_id: sent(job.id), job_status: finished(), job_percent: 100 });
    expect(progress.at(-1)).toEqual(done);
    expect(progress.some((s) => s.job_status === 'working' && s.job_percent! > 0 && s.job_percent! < 100)).toBe(true);
    const percents = progress.map((s) => s.job_percent!);
    expect([...percents].sort((a, b) => a - b)).toEqual(percents);

    const { draft_dishes } = await api.draftDishes.list({ organization_id: 1 });
    // The list's order is the service's (not shown).
    expect(draft_dishes.map((d) => d.name).sort()).toEqual(['Margherita', 'Quattro Formaggi']);
  });

  test('a second menu import while one runs is a ConflictError carrying the running job', async () => {
    target = await startMock(transport, { frozenAt: FRIDAY_EVENING });
    const api = await target.signIn('admin@pizza.demo');
    const first = await api.imports.menu(1, MENU);

    const error = await api.imports.menu(1, MENU).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    const busy = error as ConflictError;
    expect(busy.busy).toMatchObject({ status: 'busy', job_id: sent(first.id), job_status: 'queued', job_percent: 0 });
    if (target.ours) expect(busy.errors[0]?.code).toBe('import_busy');
    expect(busy.job).toBeInstanceOf(ImportJob);
    expect(busy.job!.id).toBe(first.id);

    // The virtual clock only moves when told: advance it while waiting.
    const seen: string[] = [];
    const state = await busy.job!.wait({
      intervalMs: 1,
      onProgress: async (s) => {
        seen.push(`${s.job_status} ${s.job_percent}`);
        await target.control.POST('/__mock/clock/advance', { body: { ms: 1_000 } });
      },
    });
    expect(state.job_status).toBe(finished());
    expect(seen[0]).toBe('queued 0');
    expect(seen).toContain('working 33.3');

    // The same thing through withResponse: no throw, the error narrowed by status.
    const again = await api.imports.menu(1, MENU);
    const result = await api.imports.menu(1, MENU).withResponse();
    // Our 409; the spec leaves the status open (the independent implementation answers 200).
    expect(result.response.status).toBe(target.ours ? 409 : 200);
    expect(result.data).toBeUndefined();
    if (result.error instanceof ConflictError) expect(result.error.busy?.job_id).toBe(sent(again.id));
    else expect.fail('expected a ConflictError');
    if (result.error.status === 409) expect(result.error.errors[0]?.code).toBe('import_busy');
  });

  test('waiting can be aborted; the job keeps running', async () => {
    target = await startMock(transport, { frozenAt: FRIDAY_EVENING });
    const api = await target.signIn('admin@pizza.demo');
    const job = await api.imports.menu(1, MENU);
    const controller = new AbortController();
    const waiting = job.wait({
      intervalMs: 20,
      signal: controller.signal,
      onProgress: () => controller.abort(new Error('stop')),
    });
    await expect(waiting).rejects.toThrow('stop');
    expect(await job.state()).toMatchObject({ status: 'busy', job_id: sent(job.id) });
  });

  test('client import with fromScratch, followed through its handle', async () => {
    target = await startMock(transport, { config: { importDurationMs: 0 } });
    const urls: string[] = [];
    const api = await target.signIn('admin@pizza.demo', {
      fetch: (input, init) => {
        urls.push(typeof input === 'string' ? input : input.url);
        return (target.fetch ?? globalThis.fetch)(input, init);
      },
    });
    const job = await api.imports.clients(
      1,
      { clients: [{ external_id: 'c-1', name: 'Jonas Becker', phone_numbers: ['+49 170 1112233'] }] },
      { fromScratch: true },
    );
    expect(new URL(urls.at(-1)!).searchParams.get('from_scratch')).toBe('true');
    expect(job.kind).toBe('clients');
    expect(await job.wait({ intervalMs: 10 })).toMatchObject({ job_status: finished() });
    expect(await api.imports.clientsState(1)).toMatchObject({
      status: 'idle',
      job_id: sent(job.id),
      job_status: finished(),
    });

    const courier = await target.signIn('courier@pizza.demo');
    await expect(courier.imports.clients(1, { clients: [] })).rejects.toBeInstanceOf(PermissionDeniedError);
  });

  test('order import returns a typed result per order, with existing=update or ignore', async () => {
    target = await startMock(transport);
    const api = await target.signIn('admin@pizza.demo');
    const body: OrderImportBody = {
      orders: [
        {
          external_id: 'legacy-1',
          status: 'complete',
          address: 'Wiener Straße 18',
          city: 'Berlin',
          latitude: 52.4975,
          longitude: 13.431,
          contact_name: 'Jonas Becker',
          contact_phone: '+49 170 1112233',
          client_external_id: 'c-legacy-1',
          buddies: [{ id: 'b-1', name: 'Jonas', items: [{ name: 'Margherita', amount: 1, price: 9.5 }] }],
        },
        {
          external_id: 'legacy-2',
          status: 'complete',
          takeaway: true,
          restaurant_id: 11,
          client_id: 999_999,
          buddies: [{ id: 'b-1', name: 'Guest', items: [{ name: 'Cola', amount: 1, price: 2.5 }] }],
        },
      ],
    };
    const { organization_import } = await api.imports.orders(1, body);
    expect(organization_import.map((r) => [r.external_id, r.status])).toEqual([
      ['legacy-1', 'imported'],
      ['legacy-2', 'error'],
    ]);
    const failed = organization_import.find((r) => r.status === 'error')!;
    expect(failed.errors?.map((e) => e.source?.pointer)).toEqual(['/client_id']);
    expect(organization_import[0]!.imported_at).toEqual(expect.any(String));

    const ignored = await api.imports.orders(1, { orders: [body.orders[0]!] });
    expect(ignored.organization_import[0]!.status).toBe('ignored');
    const updated = await api.imports.orders(
      1,
      { orders: [{ ...body.orders[0]!, status: 'cancelled' }] },
      { existing: 'update' },
    );
    expect(updated.organization_import[0]).toMatchObject({ external_id: 'legacy-1', status: 'imported' });
  });
});
