/**
 * Which literal IP addresses are public, for the URL check every mock makes (browser-safe and small: the
 * engine's browser bundle has a size budget, so ipaddr.js stays in the Node server, where request-filtering-agent
 * checks the connected address with it). The ranges are those of the IANA special-purpose registries; an
 * address outside them is public. The range names are ipaddr.js's, so that both checks speak alike.
 */

/** A parsed address: 4 bytes (IPv4) or 16 (IPv6). */
type Bytes = number[];

/** Dotted-quad IPv4 (the form the URL parser gives every IPv4 host, `2130706433` and `0x7f.1` included). */
function parseV4(text: string): Bytes | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

/** IPv6 in any textual form (`::`, an embedded dotted quad), without brackets or zone. */
function parseV6(text: string): Bytes | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === '') return [];
    const out: number[] = [];
    const parts = half.split(':');
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (i === parts.length - 1 && part.includes('.')) {
        const v4 = parseV4(part);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-f]{1,4}$/i.test(part)) out.push(parseInt(part, 16));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return undefined;
  const all = [...head, ...Array<number>(Math.max(0, missing)).fill(0), ...tail];
  return all.flatMap((group) => [group >> 8, group & 0xff]);
}

/** The address's bytes, or `undefined` when it is not an IP address. */
export function parseAddress(text: string): Bytes | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  return bare.includes(':') ? parseV6(bare) : parseV4(bare);
}

/** Whether the first `bits` bits of `address` equal those of `prefix` (same family). */
function inPrefix(address: Bytes, prefix: Bytes, bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const take = Math.min(8, bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((address[bit / 8]! & mask) !== (prefix[bit / 8]! & mask)) return false;
  }
  return true;
}

const V4_RANGES: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrierGradeNat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'linkLocal'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, '6to4Relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6_RANGES: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b::', 96, 'rfc6052'],
  ['64:ff9b:1::', 48, 'rfc6052'],
  ['100::', 64, 'discard'],
  ['2001::', 32, 'teredo'],
  ['2001:db8::', 32, 'reserved'],
  ['2002::', 16, '6to4'],
  ['fc00::', 7, 'uniqueLocal'],
  ['fe80::', 10, 'linkLocal'],
  ['ff00::', 8, 'multicast'],
];

const parsedRanges = (ranges: [string, number, string][]) =>
  ranges.map(([prefix, bits, name]) => ({ prefix: parseAddress(prefix)!, bits, name }));
const V4 = parsedRanges(V4_RANGES);
const V6 = parsedRanges(V6_RANGES);
const MAPPED = parseAddress('::ffff:0:0')!;
const GLOBAL_UNICAST = parseAddress('2000::')!;

/**
 * The special-purpose range of a literal address (`loopback`, `private`, `linkLocal`, `uniqueLocal`, `ipv4Mapped`…),
 * `undefined` when it is public, `unparsable` when it is no address at all.
 */
export function addressRange(text: string): string | undefined {
  const bytes = parseAddress(text);
  if (!bytes) return 'unparsable';
  if (bytes.length === 4) return V4.find((r) => inPrefix(bytes, r.prefix, r.bits))?.name;
  // An IPv4-mapped address reaches the IPv4 host it embeds: refused as such, whatever that host is.
  if (inPrefix(bytes, MAPPED, 96)) return 'ipv4Mapped';
  const special = V6.find((r) => inPrefix(bytes, r.prefix, r.bits))?.name;
  if (special) return special;
  return inPrefix(bytes, GLOBAL_UNICAST, 3) ? undefined : 'reserved';
}

/** Whether `address` lies in `cidr` (`10.1.0.0/16`, `fd00::/8`) or equals it (a bare address). */
export function inCidr(address: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split('/');
  const target = parseAddress(address);
  const prefix = parseAddress(base ?? '');
  if (!target || !prefix || target.length !== prefix.length) return false;
  const bits = bitsText === undefined ? prefix.length * 8 : Number(bitsText);
  if (!Number.isInteger(bits) || bits < 0 || bits > prefix.length * 8) return false;
  return inPrefix(target, prefix, bits);
}
