import { describe, expect, test } from 'vitest';
import { sniffImageType, toUploadForm } from './upload-file.js';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]);
const WEBP = Uint8Array.from([0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x45, 0x42, 0x50]);

describe('upload form', () => {
  test('sniffs JPEG, PNG and WebP', () => {
    expect(sniffImageType(PNG)).toBe('image/png');
    expect(sniffImageType(JPEG)).toBe('image/jpeg');
    expect(sniffImageType(WEBP)).toBe('image/webp');
    expect(sniffImageType(new TextEncoder().encode('hello'))).toBeUndefined();
  });

  test('bytes become a `file` part named and typed after their content', async () => {
    const part = (await toUploadForm(JPEG)).get('file') as File;
    expect(part).toBeInstanceOf(Blob);
    expect(part.name).toBe('photo.jpg');
    expect(part.type).toBe('image/jpeg');
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(JPEG);
  });

  test('a File keeps its name and type; options override them', async () => {
    const file = new File([PNG], 'margherita.png', { type: 'image/png' });
    expect(((await toUploadForm(file)).get('file') as File).name).toBe('margherita.png');
    const renamed = (await toUploadForm(file, { filename: 'x.webp', contentType: 'image/webp' })).get('file') as File;
    expect([renamed.name, renamed.type]).toEqual(['x.webp', 'image/webp']);
  });

  test('async iterables (Node streams) and web streams are collected, chunk order kept', async () => {
    async function* chunks() {
      yield PNG.subarray(0, 4);
      yield PNG.subarray(4);
    }
    const fromIterable = (await toUploadForm(chunks())).get('file') as File;
    expect(new Uint8Array(await fromIterable.arrayBuffer())).toEqual(PNG);
    const stream = new Blob([WEBP]).stream();
    expect(((await toUploadForm(stream)).get('file') as File).type).toBe('image/webp');
    const unknown = (await toUploadForm(new ArrayBuffer(3))).get('file') as File;
    expect([unknown.name, unknown.type]).toEqual(['photo.bin', 'application/octet-stream']);
  });

  test('refuses what is not a file', async () => {
    await expect(toUploadForm(42 as never)).rejects.toThrow(TypeError);
  });
});
