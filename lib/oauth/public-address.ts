import { isIP } from 'node:net';

/**
 * Which addresses are public, for the metadata document fetcher's rule that a document is
 * fetched from public addresses only (lib/oauth/client-metadata.ts): IANA's special-purpose
 * registries, and the IPv6 forms that carry an IPv4 address.
 */

/** `[::1]` → `::1`: URL keeps an IPv6 host in brackets. */
// Stryker disable next-line Regex: equivalent, a URL's hostname is bracketed whole or not at all, so either anchor alone matches the same hosts
export const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/** An IPv4 address as a number, or an IPv6 address as a bigint, and the width in bits. */
type Ip = { value: bigint; bits: 32 | 128 };

function ipv4(address: string): bigint {
  return address.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function ipv6(address: string): bigint {
  let text = address.split('%')[0] as string;
  // Stryker disable next-line Regex: equivalent without the anchor, a valid IPv6 address (isIP) carries its IPv4 part last
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const v4 = ipv4(dotted);
    text = `${text.slice(0, -dotted.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  // Stryker disable next-line StringLiteral: equivalent, split always gives a first element
  const [head = '', tail] = text.split('::');
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const hextets = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return hextets.reduce((acc, hextet) => (acc << 16n) | BigInt(Number.parseInt(hextet, 16)), 0n);
}

function parseIp(address: string): Ip | undefined {
  const family = isIP(address);
  if (family === 4) return { value: ipv4(address), bits: 32 };
  if (family === 6) return { value: ipv6(address), bits: 128 };
  return undefined;
}

/** A range of addresses that are not public, most specific first. */
type Range = { ip: Ip; prefix: number; kind: string };

const range = (cidr: string, kind: string): Range => {
  // Stryker disable next-line StringLiteral: equivalent, every range below is written with its prefix
  const [address = '', prefix = ''] = cidr.split('/');
  return { ip: parseIp(address) as Ip, prefix: Number(prefix), kind };
};

/** IANA's IPv4 special-purpose registry, by what a description calls each kind. */
const IPV4_RANGES: readonly Range[] = [
  range('169.254.169.254/32', 'cloud metadata'),
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'shared (carrier-grade NAT)'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', 'reserved'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
];

/** IPv6 forms that carry an IPv4 address, and where in them it is. */
const IPV4_CARRIERS: readonly { range: Range; shift: bigint }[] = [
  { range: range('::ffff:0:0/96', 'IPv4-mapped'), shift: 0n },
  { range: range('64:ff9b::/96', 'NAT64'), shift: 0n },
  { range: range('2002::/16', '6to4'), shift: 80n },
];

const IPV6_RANGES: readonly Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('fd00:ec2::254/128', 'cloud metadata'),
  range('fc00::/7', 'private'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'private'),
  range('ff00::/8', 'multicast'),
  range('2001:db8::/32', 'documentation'),
  range('2001::/23', 'reserved'),
];
/** Only global unicast (2000::/3) is public; the rest of the IPv6 space is reserved. */
const GLOBAL_UNICAST = range('2000::/3', 'global unicast');

const within = ({ value, bits }: Ip, r: Range) =>
  // Stryker disable next-line ConditionalExpression: equivalent, each list is searched with addresses of its own width only (an IPv4 one, or one carried in IPv6, against IPv4 ranges)
  bits === r.ip.bits && value >> BigInt(bits - r.prefix) === r.ip.value >> BigInt(bits - r.prefix);

/**
 * What kind of non-public address `address` is (`loopback`, `private`, `link-local`,
 * `cloud metadata`…), or undefined when it is public. An IPv6 address that carries an IPv4 one
 * (IPv4-mapped, NAT64, 6to4) is judged by the IPv4 address; something that is not an IP address
 * is not public.
 */
export function nonPublicAddress(address: string): string | undefined {
  const ip = parseIp(address);
  if (!ip) return 'invalid';
  if (ip.bits === 32) return IPV4_RANGES.find((r) => within(ip, r))?.kind;
  const carrier = IPV4_CARRIERS.find(({ range: r }) => within(ip, r));
  if (carrier) {
    const embedded: Ip = { value: (ip.value >> carrier.shift) & 0xffff_ffffn, bits: 32 };
    return IPV4_RANGES.find((r) => within(embedded, r))?.kind;
  }
  const kind = IPV6_RANGES.find((r) => within(ip, r))?.kind;
  if (kind) return kind;
  return within(ip, GLOBAL_UNICAST) ? undefined : 'reserved';
}
