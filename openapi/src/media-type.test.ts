import { expect, test } from 'vitest';
import { mediaTypeOf } from './media-type.js';

test('the media type of a Content-Type is lower-cased and loses its parameters', () => {
  expect(mediaTypeOf('Application/JSON; charset=utf-8')).toBe('application/json');
  expect(mediaTypeOf(' multipart/form-data ;boundary=x')).toBe('multipart/form-data');
  expect(mediaTypeOf(null)).toBeUndefined();
  expect(mediaTypeOf('')).toBeUndefined();
  expect(mediaTypeOf('; charset=utf-8')).toBe('');
});
