import { expect, test } from 'vitest';
import { ANNA, DORA, KENJI, as, demoMock } from '../support/catalog-client.js';

const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3, 4,
]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1]);
const WEBP = new Uint8Array([0x52, 0x49, 0x46, 0x46, 4, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x20]);
const GIF = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0]);

function photoForm(bytes: Uint8Array<ArrayBuffer>, type: string, extra?: Record<string, string>): FormData {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), 'photo');
  for (const [key, value] of Object.entries(extra ?? {})) form.append(key, value);
  return form;
}

test('a dish photo is stored, every size URL is returned and serves the bytes with their type', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('PUT', '/api/draft_dishes/10003/photo', { form: photoForm(PNG, 'image/png') });
  expect(res.status).toBe(200);
  const { photo } = res.body.draft_dish;
  expect(Object.keys(photo).sort()).toEqual(['large', 'medium', 'medium_square', 'original', 'small_square']);
  expect(photo.original).toMatch(/^http:\/\/localhost:4010\/__mock\/photos\/\d+\/original$/);
  for (const url of Object.values(photo) as string[]) {
    const served = await mock.fetch(url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG);
  }
  expect((await anna('GET', '/api/draft_dishes/10003')).body.draft_dish.photo).toEqual(photo);
  expect((await mock.fetch(photo.original.replace(/\d+\/original$/, '999/original'))).status).toBe(404);
});

test('a category photo has the four category sizes; JPEG and WebP are accepted by content', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('PUT', '/api/draft_categories/1002/photo', {
    form: photoForm(JPEG, 'application/octet-stream'),
  });
  expect(res.status).toBe(200);
  expect(Object.keys(res.body.draft_category.photo).sort()).toEqual([
    'large',
    'medium_square',
    'original',
    'small_square',
  ]);
  expect((await mock.fetch(res.body.draft_category.photo.large)).headers.get('content-type')).toBe('image/jpeg');
  const webp = await anna('PUT', '/api/draft_categories/1002/photo', { form: photoForm(WEBP, 'image/webp') });
  expect(webp.status).toBe(200);
  expect((await mock.fetch(webp.body.draft_category.photo.original)).headers.get('content-type')).toBe('image/webp');
});

test('a photo over maxPhotoBytes is 413 and changes nothing', async () => {
  const mock = demoMock({ maxPhotoBytes: 16 });
  const anna = await as(mock, ANNA);
  const res = await anna('PUT', '/api/draft_dishes/10003/photo', { form: photoForm(PNG, 'image/png') });
  expect(res.status).toBe(413);
  expect(res.body.errors[0]).toMatchObject({ code: 'too_large', source: { pointer: '/file' } });
  expect((await anna('GET', '/api/draft_dishes/10003')).body.draft_dish.photo).toBeNull();
  expect(mock.runtime.state.photos.size).toBe(0);
});

test('a file that is not a JPEG, PNG or WebP by its content is 422 on /file, whatever its declared type', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  for (const [bytes, type] of [
    [GIF, 'image/gif'],
    [new TextEncoder().encode('not an image at all'), 'image/png'],
    [PNG, 'image/jpeg'],
  ] as const) {
    const res = await anna('PUT', '/api/draft_dishes/10003/photo', { form: photoForm(bytes, type) });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe('/file');
  }
  expect(mock.runtime.state.photos.size).toBe(0);
});

test('a body that is not multipart is 415; other parts are 422 unknown_field; a missing file is 422', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  expect((await anna('PUT', '/api/draft_dishes/10003/photo', { json: { file: 'x' } })).status).toBe(415);
  const extra = await anna('PUT', '/api/draft_dishes/10003/photo', {
    form: photoForm(PNG, 'image/png', { caption: 'Cola' }),
  });
  expect(extra.status).toBe(422);
  expect(extra.body.errors[0]).toMatchObject({ code: 'unknown_field', source: { pointer: '/caption' } });
  const form = new FormData();
  form.append('image', new Blob([PNG], { type: 'image/png' }), 'photo');
  const missing = await anna('PUT', '/api/draft_dishes/10003/photo', { form });
  expect(missing.status).toBe(422);
  expect(missing.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toContain('/file');
});

test('scope: a dispatcher gets 403, staff of another organization 404', async () => {
  const mock = demoMock();
  expect(
    (await (await as(mock, DORA))('PUT', '/api/draft_dishes/10003/photo', { form: photoForm(PNG, 'image/png') }))
      .status,
  ).toBe(403);
  expect(
    (await (await as(mock, KENJI))('PUT', '/api/draft_categories/1001/photo', { form: photoForm(PNG, 'image/png') }))
      .status,
  ).toBe(404);
});

test('the storefront keeps showing the published photo until the next publication', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const first = (await anna('PUT', '/api/draft_dishes/10003/photo', { form: photoForm(PNG, 'image/png') })).body
    .draft_dish.photo;
  await anna('POST', '/api/organizations/1/publish');
  const second = (await anna('PUT', '/api/draft_dishes/10003/photo', { form: photoForm(JPEG, 'image/jpeg') })).body
    .draft_dish.photo;
  expect(second.original).not.toBe(first.original);
  expect((await mock.fetch(first.original)).status).toBe(200);
  await anna('POST', '/api/organizations/1/publish');
  // Nothing shows the first photo any more, so its bytes are gone.
  expect((await mock.fetch(first.original)).status).toBe(404);
  expect((await mock.fetch(second.original)).status).toBe(200);
});
