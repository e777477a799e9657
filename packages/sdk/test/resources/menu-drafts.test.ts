import { Readable } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { ConflictError, NotFoundError, PermissionDeniedError } from '@restoapi/sdk';
import { startMock, TINY_PNG, TRANSPORTS, type MockTarget, expectInvalid } from '../support/mock-target.js';

describe.each(TRANSPORTS)('menu drafts over %s', (transport) => {
  let target: MockTarget;
  afterEach(() => target?.close());

  test('draft categories: list, get, create, update, delete', async () => {
    target = await startMock(transport);
    const api = await target.signIn('admin@pizza.demo');
    const { draft_categories } = await api.draftCategories.list({ organization_id: 1 });
    expect(draft_categories.map((c) => c.name)).toEqual(['Pizza', 'Drinks']);
    const pizza = await api.draftCategories.get(1001);
    expect(pizza.draft_category.draft_dish_ids).toEqual(expect.arrayContaining([10001, 10002]));

    const created = await api.draftCategories.create({ name: 'Desserts', organization_id: 1 }).withResponse();
    expect(created.response.status).toBe(201);
    const id = created.data!.draft_category.id;
    expect(created.data!.draft_category).toMatchObject({
      name: 'Desserts',
      menu_order: 3,
      photo: null,
      draft_dish_ids: [],
    });

    const renamed = await api.draftCategories.update(id, { name: 'Sweets', menu_order: 0 });
    expect(renamed.draft_category).toMatchObject({ name: 'Sweets', menu_order: 0 });

    await expect(api.draftCategories.delete(id)).resolves.toBeUndefined();
    await expect(api.draftCategories.get(id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(api.draftCategories.delete(id)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('draft dishes: list with filters, get, create, update, delete', async () => {
    target = await startMock(transport);
    const api = await target.signIn('admin@pizza.demo');
    const drinks = await api.draftDishes.list({ organization_id: 1, draft_category_id: 1002 });
    expect(drinks.draft_dishes.map((d) => d.name)).toEqual(['Cola 0.33 l']);
    const { draft_dish } = await api.draftDishes.get(10001);
    expect(draft_dish).toMatchObject({ name: 'Margherita', price: '9.50', external_id: 'pp-margherita' });

    const created = await api.draftDishes.create({
      name: 'Tiramisu',
      price: 6.5,
      weight: 120,
      draft_category_id: 1001,
      organization_id: 1,
    });
    expect(created.draft_dish).toMatchObject({
      name: 'Tiramisu',
      price: '6.50',
      weight: '120',
      is_hidden: false,
      options: null,
    });
    const id = created.draft_dish.id;

    const moved = await api.draftDishes.update(id, { draft_category_id: 1002, price: '7.00', is_hidden: true });
    expect(moved.draft_dish).toMatchObject({ draft_category_id: 1002, price: '7.00', is_hidden: true });

    await expect(api.draftDishes.delete(id)).resolves.toBeUndefined();
    await expect(api.draftDishes.get(id)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('a create without a required field is a 422 naming the field; a dispatcher may not edit menus', async () => {
    target = await startMock(transport);
    const api = await target.signIn('admin@pizza.demo');
    const invalid = await api.draftDishes
      // @ts-expect-error name is required (the check is the service's too)
      .create({ price: '9.50', draft_category_id: 1001, organization_id: 1 })
      .catch((e: unknown) => e);
    expectInvalid(target, invalid, '/draft_dish/name');

    const dispatcher = await target.signIn('dispatcher@demo');
    await expect(dispatcher.draftDishes.update(10001, { name: 'Marinara' })).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
  });

  test('photo uploads take a Blob, a Uint8Array, a Node stream or a web ReadableStream as multipart `file`', async () => {
    target = await startMock(transport);
    const api = await target.signIn('admin@pizza.demo');

    const fromBlob = await api.draftCategories.uploadPhoto(1001, new Blob([TINY_PNG], { type: 'image/png' }));
    expect(fromBlob.draft_category.photo).toMatchObject({ original: expect.any(String), large: expect.any(String) });

    const fromBytes = await api.draftDishes.uploadPhoto(10001, TINY_PNG);
    expect(fromBytes.draft_dish.photo?.original).toMatch(/^http/);

    const fromBuffer = await api.draftDishes.uploadPhoto(10002, Buffer.from(TINY_PNG), { filename: 'diavolo.png' });
    expect(fromBuffer.draft_dish.photo).not.toBeNull();

    const fromNodeStream = await api.draftDishes.uploadPhoto(
      10003,
      Readable.from([TINY_PNG.subarray(0, 10), TINY_PNG.subarray(10)]),
    );
    expect(fromNodeStream.draft_dish.photo).not.toBeNull();

    const webStream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(TINY_PNG);
        controller.close();
      },
    });
    const fromWebStream = await api.draftCategories.uploadPhoto(1002, webStream);
    expect(fromWebStream.draft_category.photo).not.toBeNull();

    // The uploaded photo is served at its URL.
    const photoUrl = new URL(fromBytes.draft_dish.photo!.original);
    const served = await (target.fetch ?? globalThis.fetch)(new Request(new URL(photoUrl.pathname, target.baseUrl)));
    expect(served.status).toBe(200);
  });

  test('an upload that is not an image is a 422 pointing at /file', async () => {
    target = await startMock(transport);
    const api = await target.signIn('admin@pizza.demo');
    const error = await api.draftDishes
      .uploadPhoto(10001, new TextEncoder().encode('not an image'))
      .catch((e: unknown) => e);
    expectInvalid(target, error, '/file');
    expect(error).not.toBeInstanceOf(ConflictError);
  });
});
