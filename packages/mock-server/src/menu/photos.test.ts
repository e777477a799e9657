import { expect, test } from 'vitest';
import { fromBase64, photoIdOf, sniffImageType, toBase64 } from './photos.js';

test('image types are told by their first bytes', () => {
  expect(sniffImageType(new Uint8Array([0xff, 0xd8, 0xff, 0xdb]))).toBe('image/jpeg');
  expect(sniffImageType(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe('image/png');
  expect(sniffImageType(new TextEncoder().encode('RIFF\u0000\u0000\u0000\u0000WEBPVP8 '))).toBe('image/webp');
  expect(sniffImageType(new TextEncoder().encode('RIFF\u0000\u0000\u0000\u0000WAVEfmt '))).toBeUndefined();
  expect(sniffImageType(new TextEncoder().encode('GIF89a'))).toBeUndefined();
  expect(sniffImageType(new Uint8Array([0x89, 0x50]))).toBeUndefined();
});

test('base64 round-trips large binary data', () => {
  const bytes = new Uint8Array(200_000).map((_, i) => (i * 31) % 256);
  const decoded = fromBase64(toBase64(bytes));
  // A plain loop: a deep equality over 200,000 elements is slow.
  expect(decoded.length === bytes.length && decoded.every((byte, i) => byte === bytes[i])).toBe(true);
});

test('photo ids are read back only from the mock’s own photo URLs', () => {
  expect(photoIdOf('http://localhost:4010/__mock/photos/12/medium_square')).toBe(12);
  expect(photoIdOf('https://cdn.restoapi.dev/pizza-piccolo/draft_dishes/10001/original.jpg')).toBeUndefined();
  expect(photoIdOf(undefined)).toBeUndefined();
});
