import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { expect, test } from 'vitest';
import { sampledRuns } from '../../../../scripts/testing/test-mode.js';
import { addressRange, inCidr } from '../../src/net/address-ranges.js';
import { urlProblem } from '../../src/net/outbound-policy.js';

/** What the Node server's connect-time check (request-filtering-agent, through ipaddr.js) refuses. */
const agentRefuses = (address: string): boolean => ipaddr.parse(address).range() !== 'unicast';

const NOT_PUBLIC = [
  '127.0.0.1',
  '127.255.255.254',
  '0.0.0.0',
  '10.0.0.1',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '169.254.169.254',
  '100.100.100.200',
  '224.0.0.1',
  '255.255.255.255',
  '::',
  '::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:8.8.8.8',
  'fc00::1',
  'fd00:ec2::254',
  'fe80::1',
  'ff02::1',
  '2001:db8::1',
  '64:ff9b::7f00:1',
];
const PUBLIC = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '100.128.0.1', '2606:4700::1111', '2a00:1450::1'];

test('literal addresses: inside the network refused, public ones not, agreeing with the connect-time check', () => {
  for (const address of NOT_PUBLIC) {
    expect(addressRange(address), address).toBeDefined();
    expect(agentRefuses(address), address).toBe(true);
  }
  for (const address of PUBLIC) {
    expect(addressRange(address), address).toBeUndefined();
    expect(agentRefuses(address), address).toBe(false);
  }
  expect(addressRange('::ffff:127.0.0.1')).toBe('ipv4Mapped');
  expect(addressRange('fd00::1')).toBe('uniqueLocal');
  expect(addressRange('fe80::1')).toBe('linkLocal');
  expect(addressRange('not an address')).toBe('unparsable');
});

test('whatever the connect-time check refuses, the URL check refuses too (seeded random addresses)', () => {
  const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((b) => b.join('.'));
  const v6 = fc
    .array(fc.nat(0xffff), { minLength: 8, maxLength: 8 })
    .map((groups) => groups.map((g) => g.toString(16)).join(':'));
  fc.assert(
    fc.property(fc.oneof(v4, v6), (address) => {
      if (agentRefuses(address)) expect(addressRange(address), address).toBeDefined();
    }),
    { numRuns: sampledRuns(2_000, 50_000), seed: 39 },
  );
});

test('URL forms the parser turns into loopback are refused under public, allowed under any or by the allowlist', () => {
  const rule = { mode: 'public' as const, allowHosts: ['10.1.0.0/16', 'photos.internal'] };
  for (const url of [
    'http://2130706433/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://LOCALHOST/',
    'http://a.localhost/',
  ])
    expect(urlProblem(url, rule, '--remote-photos'), url).toBeDefined();
  expect(urlProblem('http://10.1.2.3/p.png', rule, '--remote-photos')).toBeUndefined();
  expect(urlProblem('http://photos.internal/p.png', rule, '--remote-photos')).toBeUndefined();
  expect(urlProblem('http://10.2.0.1/p.png', rule, '--remote-photos')).toMatch(
    /address 10\.2\.0\.1 is not public \(private/,
  );
  expect(urlProblem('http://127.0.0.1/', { mode: 'any', allowHosts: [] }, '--remote-photos')).toBeUndefined();
  expect(urlProblem('http://8.8.8.8/', { mode: 'off', allowHosts: [] }, '--remote-photos')).toMatch(/off/);
  expect(inCidr('fd00::1', 'fd00::/8')).toBe(true);
  expect(inCidr('10.0.0.1', 'fd00::/8')).toBe(false);
});
