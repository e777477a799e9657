import { expect, test } from 'vitest';
import { decodeStrict, nonCanonical, parameterSyntax, parseQueryStrict } from './strict-parameters.js';

test('a path segment decodes, or is undefined when its percent-encoding is malformed', () => {
  expect(decodeStrict('caf%C3%A9')).toBe('café');
  expect(decodeStrict('%E0')).toBeUndefined();
  expect(decodeStrict('%')).toBeUndefined();
  expect(decodeStrict('%zz')).toBeUndefined();
});

test('a query string with a malformed escape names the pair and keeps the others', () => {
  const { params, malformed } = parseQueryStrict('?page=%E0&per_page=5&q=a+b%20c&%FF=1&flag');
  expect(malformed).toEqual(['page', '%FF']);
  expect([...params]).toEqual([
    ['per_page', '5'],
    ['q', 'a b c'],
    ['flag', ''],
  ]);
});

test('a query string without escapes reads as URLSearchParams reads it', () => {
  expect([...parseQueryStrict('a=1&a=2&b=x+y').params]).toEqual([
    ['a', '1'],
    ['a', '2'],
    ['b', 'x y'],
  ]);
});

test('only canonical decimal integers are integers', () => {
  for (const good of ['0', '1', '42', '-7', '9007199254740991']) expect(nonCanonical('integer', good)).toBeUndefined();
  for (const bad of ['0x1', '+1', '01', ' 1', '1 ', '1e3', '1.0', '-0', '', '１', '1_000', 'Infinity', 'NaN'])
    expect(nonCanonical('integer', bad), bad).toMatch(/^must be a decimal integer such as 42 .*; got /);
  expect(nonCanonical('integer', '9007199254740992')).toBe('must be at most 9007199254740991; got "9007199254740992"');
});

test('numbers are JSON numbers', () => {
  for (const good of ['0', '4.5', '-0.25', '1e3', '2E-2']) expect(nonCanonical('number', good)).toBeUndefined();
  for (const bad of ['0x1', '+1', '01', ' 1', '.5', '5.', '1e999', 'NaN'])
    expect(nonCanonical('number', bad), bad).toMatch(/^must be a decimal number/);
  expect(nonCanonical('text', '0x1')).toBeUndefined();
});

test('the syntax of a parameter follows $refs and array items; a type that takes strings has none', () => {
  const document = { components: { schemas: { Id: { type: 'integer', minimum: 1 } } } };
  const resolve = (ref: string): unknown => document.components.schemas[ref.split('/').at(-1) as 'Id'];
  expect(parameterSyntax({ $ref: '#/components/schemas/Id' }, resolve)).toBe('integer');
  expect(parameterSyntax({ type: 'array', items: { $ref: '#/components/schemas/Id' } }, resolve)).toBe('integer');
  expect(parameterSyntax({ type: ['number', 'null'] }, resolve)).toBe('number');
  expect(parameterSyntax({ type: ['integer', 'string'] }, resolve)).toBe('text');
  expect(parameterSyntax({ type: 'boolean' }, resolve)).toBe('text');
});
