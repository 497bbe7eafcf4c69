import type { IPv4, IPv6 } from 'ipaddr.js';
import { lazyCjs } from '../cjs.js';

const ipaddrLibrary = lazyCjs<typeof import('ipaddr.js')>('ipaddr.js');

type Address = IPv4 | IPv6;

/**
 * Cloud metadata endpoints. Most sit in ranges refused anyway (link-local, CGNAT, unique-local);
 * Azure's wire server is a public address, so every one is listed by value as well.
 */
const METADATA_ADDRESSES = new Set([
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean
  '169.254.170.2', // AWS ECS task metadata
  '168.63.129.16', // Azure wire server (a public address)
  '100.100.100.200', // Alibaba Cloud
  '192.0.0.192', // Oracle Cloud (legacy)
  'fd00:ec2::254', // AWS over IPv6
]);

/** Names that reach a metadata service without a DNS answer anyone could check. */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data']);

/** `ipaddr.js` range names, as a reader of an error message would say them. */
const RANGE_LABELS: Readonly<Record<string, string>> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (shared) address',
  private: 'a private address',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique-local (private) IPv6 address',
  ipv4Mapped: 'an IPv4-mapped IPv6 address',
  rfc6145: 'an IPv4-translated IPv6 address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  discard: 'a discard-only address',
};

/** Lower case, without a trailing dot or IPv6 brackets: the one spelling every check compares. */
export function normalizeHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  while (name.endsWith('.')) name = name.slice(0, -1);
  return name;
}

/**
 * Parses an IP literal in any spelling `ipaddr.js` knows (dotted, hex, octal, one 32-bit number,
 * IPv6 with an embedded IPv4), or `undefined` for a host name.
 */
export function parseAddress(host: string): Address | undefined {
  const name = normalizeHost(host);
  if (ipaddrLibrary().IPv6.isValid(name)) return ipaddrLibrary().IPv6.parse(name);
  if (ipaddrLibrary().IPv4.isValid(name)) return ipaddrLibrary().IPv4.parse(name);
  return undefined;
}

/** One `allowPrivate` entry: a CIDR range (or one address), or a host name. */
export type AllowEntry =
  | { kind: 'range'; range: [Address, number]; text: string }
  | { kind: 'host'; host: string };

/** Reads `allowPrivate` entries; a malformed CIDR throws a `TypeError` naming it. */
export function parseAllowList(entries: readonly string[]): AllowEntry[] {
  return entries.map((text) => {
    if (text.includes('/')) {
      try {
        const range = ipaddrLibrary().parseCIDR(normalizeHost(text));
        return { kind: 'range', range, text };
      } catch {
        throw new TypeError(`"${text}" is not a valid CIDR range (e.g. 10.0.0.0/8, fd00::/8)`);
      }
    }
    const address = parseAddress(text);
    if (address) {
      return { kind: 'range', range: [address, address.kind() === 'ipv4' ? 32 : 128], text };
    }
    return { kind: 'host', host: normalizeHost(text) };
  });
}

function inRange(address: Address, [base, bits]: [Address, number]): boolean {
  if (address.kind() !== base.kind()) return false;
  return address.match(base as never, bits);
}

/** True when an `allowPrivate` host entry names this host. */
export function hostAllowed(host: string, allow: readonly AllowEntry[]): boolean {
  const name = normalizeHost(host);
  return allow.some((entry) => entry.kind === 'host' && entry.host === name);
}

/** Why a host name is refused before any DNS lookup, or `undefined`. */
export function refuseHostName(host: string, allow: readonly AllowEntry[]): string | undefined {
  const name = normalizeHost(host);
  if (hostAllowed(name, allow)) return undefined;
  if (METADATA_HOSTS.has(name)) return `${name} is a cloud metadata host`;
  if (name === 'localhost' || name.endsWith('.localhost')) return `${name} is a loopback host name`;
  return undefined;
}

/** The range an address counts as, looking through IPv4-compatible IPv6 (`::a.b.c.d`). */
function rangeOf(address: Address): string {
  if (address.kind() === 'ipv6') {
    const parts = (address as IPv6).parts;
    // ::/96 (other than :: and ::1) is the deprecated IPv4-compatible form: never a real peer.
    if (parts.slice(0, 6).every((p) => p === 0) && address.range() === 'unicast') return 'ipv4Compatible';
  }
  return address.range();
}

/** The address and, for an IPv4-mapped IPv6 one, the IPv4 address it is to the kernel. */
function forms(address: Address): { address: Address; mapped: IPv4 | undefined } {
  const mapped =
    address.kind() === 'ipv6' && (address as IPv6).isIPv4MappedAddress()
      ? (address as IPv6).toIPv4Address()
      : undefined;
  return { address, mapped };
}

function covers(entry: AllowEntry, { address, mapped }: ReturnType<typeof forms>): boolean {
  // An IPv4-mapped address is that IPv4 address to the kernel: an IPv4 range admits it too.
  return (
    entry.kind === 'range' && (inRange(address, entry.range) || (!!mapped && inRange(mapped, entry.range)))
  );
}

/**
 * Why a cloud metadata address is refused, or `undefined` when it is not one or an entry names
 * exactly it. Neither a broad range (169.254.0.0/16, 0.0.0.0/0) nor a trusted host name that
 * resolves there opens the metadata service by accident.
 */
export function refuseMetadata(text: string, allow: readonly AllowEntry[]): string | undefined {
  const address = parseAddress(text);
  if (!address) return undefined;
  const both = forms(address);
  if (!METADATA_ADDRESSES.has((both.mapped ?? address).toString())) return undefined;
  const exact = (entry: AllowEntry) =>
    entry.kind === 'range' &&
    entry.range[1] === (entry.range[0].kind() === 'ipv4' ? 32 : 128) &&
    covers(entry, both);
  if (allow.some(exact)) return undefined;
  return `${address.toString()} is a cloud metadata address`;
}

/**
 * Why connecting to this address is refused, or `undefined` when it may be used: only public
 * unicast addresses pass, unless an `allowPrivate` range covers the address.
 */
export function refuseAddress(text: string, allow: readonly AllowEntry[]): string | undefined {
  const address = parseAddress(text);
  if (!address) return `${text} is not an IP address`;
  const both = forms(address);
  if (METADATA_ADDRESSES.has((both.mapped ?? address).toString())) return refuseMetadata(text, allow);
  if (allow.some((entry) => covers(entry, both))) return undefined;
  const range = rangeOf(address);
  if (range === 'unicast') return undefined;
  if (range === 'ipv4Compatible') return `${address.toString()} is an IPv4-compatible IPv6 address`;
  return `${address.toString()} is ${RANGE_LABELS[range] ?? `in the ${range} range`}`;
}
