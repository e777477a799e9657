import { afterEach, describe, expect, test } from 'vitest';
import { NotFoundError } from '@restoapi/sdk';
import { startMock, TRANSPORTS, type MockTarget, expectInvalid } from '../support/mock-target.js';

const NEUKOELLN = 'POLYGON((13.4200 52.4700, 13.4600 52.4700, 13.4600 52.4850, 13.4200 52.4850, 13.4200 52.4700))';

describe.each(TRANSPORTS)('delivery zones over %s', (transport) => {
  let target: MockTarget;
  afterEach(() => target?.close());

  test('list with the organization filter and get (unwrapped zone)', async () => {
    target = await startMock(transport);
    const api = await target.signIn('dispatcher@demo');
    const { delivery_zones } = await api.deliveryZones.list({ organization_id: 1 });
    expect(delivery_zones.map((z) => z.id)).toEqual([101, 102]);
    const zone = await api.deliveryZones.get(101);
    expect(zone).toMatchObject({ id: 101, name: 'Kreuzberg', restaurant_id: 11, timezone: 'Europe/Berlin' });
    expect(zone.timetables).toHaveLength(7);
  });

  test('create needs only organization_id, restaurant_id and name; update takes timetables without is_working; delete', async () => {
    target = await startMock(transport);
    const api = await target.signIn('admin@pizza.demo');
    const created = await api.deliveryZones
      .create({ organization_id: 1, restaurant_id: 11, name: 'Neukölln' })
      .withResponse();
    // 201 is our decision; the spec says only "created zone".
    expect(created.response.status).toBe(target.ours ? 201 : created.response.status);
    expect(created.response.ok).toBe(true);
    const zone = created.data!;
    expect(zone).toMatchObject({
      name: 'Neukölln',
      delivery_time: 60,
      price: 0,
      timezone: 'UTC',
      area: null,
      timetables: [],
    });

    const updated = await api.deliveryZones.update(zone.id, {
      area: NEUKOELLN,
      timezone: 'Europe/Berlin',
      timetables: [{ day: 1, open_at: '2000-01-01T11:00:00Z', close_at: '2000-01-01T22:00:00Z' }],
    });
    expect(updated.area).toContain('POLYGON');
    expect(updated.timetables).toEqual([expect.objectContaining({ day: 1, is_working: true })]);

    await expect(api.deliveryZones.delete(zone.id)).resolves.toBeUndefined();
    await expect(api.deliveryZones.get(zone.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('an area that is not a simple polygon is a 422 pointing at /area', async () => {
    target = await startMock(transport);
    const api = await target.signIn('admin@pizza.demo');
    const bowTie = 'POLYGON((13.40 52.50, 13.45 52.55, 13.45 52.50, 13.40 52.55, 13.40 52.50))';
    const error = await api.deliveryZones.update(101, { area: bowTie }).catch((e: unknown) => e);
    expectInvalid(target, error, '/area');
  });
});
