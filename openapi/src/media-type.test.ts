import { expect, test } from 'vitest';
import { mediaTypeOf } from './media-type.js';

test('the media type of a Content-Type is lower-cased and loses its parameters', () => {
  expect(mediaTypeOf('Application/JSON; charset=utf-8')).toBe('application/json');
  expect(mediaTypeOf(' multipart/form-data ;boundary=x')).toBe('multipart/form-data');
  expect(mediaTypeOf(null)).toBeUndefined();
  expect(mediaTypeOf('')).toBeUndefined();
  expect(mediaTypeOf('; charset=utf-8')).toBe('');
});

test('values read in turn each get their own media type', () => {
  const values = [
    'application/json',
    'Text/Plain; a=b',
    'application/json',
    '',
    'application/json',
    null,
    'text/html;',
  ];
  const expected = [
    'application/json',
    'text/plain',
    'application/json',
    undefined,
    'application/json',
    undefined,
    'text/html',
  ];
  for (let round = 0; round < 3; round++) expect(values.map((value) => mediaTypeOf(value))).toEqual(expected);
});
