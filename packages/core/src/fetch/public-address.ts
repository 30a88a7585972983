/**
 * Classifying IP addresses as public (routable on the internet) or not, for the consumer's
 * "public destinations only" mode. Pure string logic: runs anywhere.
 *
 * @module
 */

function parseIPv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : Number.NaN));
  return bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255) ? bytes : undefined;
}

// Special-purpose IPv4 blocks (IANA registry): [first octets, prefix length].
const PRIVATE_V4: readonly [readonly number[], number][] = [
  [[0], 8], // "this network"
  [[10], 8], // private
  [[100, 64], 10], // carrier-grade NAT
  [[127], 8], // loopback
  [[169, 254], 16], // link-local (cloud metadata at 169.254.169.254)
  [[172, 16], 12], // private
  [[192, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2], 24], // documentation
  [[192, 88, 99], 24], // 6to4 relay anycast
  [[192, 168], 16], // private
  [[198, 18], 15], // benchmarking
  [[198, 51, 100], 24], // documentation
  [[203, 0, 113], 24], // documentation
  [[224], 4], // multicast
  [[240], 4], // reserved, broadcast
];

function inBlock(bytes: readonly number[], block: readonly number[], prefix: number): boolean {
  let bits = prefix;
  for (let i = 0; i < 4 && bits > 0; i++) {
    const take = Math.min(8, bits);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((block[i] ?? 0) & mask)) return false;
    bits -= take;
  }
  return true;
}

function isPublicIPv4(bytes: readonly number[]): boolean {
  return !PRIVATE_V4.some(([block, prefix]) => inBlock(bytes, block, prefix));
}

/** Expands an IPv6 literal (no brackets, optional zone) to eight 16-bit groups. */
function parseIPv6(text: string): number[] | undefined {
  let address = text.toLowerCase().split('%')[0] ?? '';
  let tail: number[] = [];
  const lastColon = address.lastIndexOf(':');
  const maybeV4 = address.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    const v4 = parseIPv4(maybeV4);
    if (!v4) return undefined;
    tail = [
      ((v4[0] as number) << 8) | (v4[1] as number),
      ((v4[2] as number) << 8) | (v4[3] as number),
    ];
    address = `${address.slice(0, lastColon + 1)}0:0`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const read = (part: string) =>
    part === ''
      ? []
      : part
          .split(':')
          .map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? Number.parseInt(g, 16) : Number.NaN));
  const head = read(halves[0] ?? '');
  const rest = halves.length === 2 ? read(halves[1] ?? '') : [];
  const groups =
    halves.length === 2
      ? [...head, ...new Array(8 - head.length - rest.length).fill(0), ...rest]
      : head;
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g))) return undefined;
  if (tail.length === 2) {
    groups[6] = tail[0] as number;
    groups[7] = tail[1] as number;
  }
  return groups;
}

function embeddedIPv4(groups: readonly number[]): number[] {
  const hi = groups[6] as number;
  const lo = groups[7] as number;
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

// Special-purpose IPv6 blocks (IANA registry) that are not globally reachable, checked after the
// forms that embed an IPv4 address. Conservative where the registry allows exceptions: the
// anycast services inside 2001::/23 (PCP, TURN, AMT, AS112, ORCHIDv2) are never S2SP data planes.
function isPublicIPv6(groups: readonly number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0] = groups;
  const zeroTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeroTo(8)) return false; // ::
  if (zeroTo(7) && groups[7] === 1) return false; // ::1 loopback
  // IPv4-mapped ::ffff:0:0/96: not globally reachable (RFC 4291); a socket never needs one to
  // reach a public IPv4 address, and accepting them invites mapped-address tricks.
  if (zeroTo(5) && g5 === 0xffff) return false;
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return false; // IPv4-translated ::ffff:0:0:0/96
  if (zeroTo(6)) return false; // deprecated IPv4-compatible ::a.b.c.d
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0)
    return isPublicIPv4(embeddedIPv4(groups)); // NAT64 well-known prefix 64:ff9b::/96
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return false; // local-use NAT64 64:ff9b:1::/48
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && (g3 === 0 || g3 === 1)) return false; // discard 100::/64, dummy 100:0:0:1::/64
  if (g0 === 0x2001 && g1 < 0x0200) return false; // IETF protocol assignments 2001::/23 (Teredo 2001::/32, benchmarking, ORCHID)
  if (g0 === 0x2001 && g1 === 0x0db8) return false; // documentation 2001:db8::/32
  if (g0 === 0x3fff && g1 < 0x1000) return false; // documentation 3fff::/20
  if (g0 === 0x3ffe) return false; // former 6bone 3ffe::/16, returned to IANA
  if (g0 === 0x5f00) return false; // SRv6 SIDs 5f00::/16
  if ((g0 & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return false; // site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return false; // multicast
  if (g0 === 0x2002) return isPublicIPv4([g1 >> 8, g1 & 0xff, g2 >> 8, g2 & 0xff]); // 6to4 embeds IPv4
  // Anything outside global unicast 2000::/3 is unallocated or reserved.
  return (g0 & 0xe000) === 0x2000;
}

/**
 * True if `address` is an IP address that is routable on the public internet: not loopback,
 * private, link-local, carrier-grade NAT, multicast, documentation or otherwise reserved (the
 * IANA IPv4 and IPv6 special-purpose registries), nor any IPv4-mapped (`::ffff:0:0/96`),
 * IPv4-translated, IPv4-compatible, local-use NAT64 (`64:ff9b:1::/48`) or Teredo/IETF
 * (`2001::/23`) address, nor a NAT64 (`64:ff9b::/96`) or 6to4 address that embeds a non-public
 * IPv4 address. Anything that is not an IP literal is `false`.
 *
 * @param address - an IPv4 or IPv6 address as a socket reports it (IPv6 without brackets)
 */
export function isPublicAddress(address: string): boolean {
  const v4 = parseIPv4(address);
  if (v4) return isPublicIPv4(v4);
  const v6 = parseIPv6(address.replace(/^\[|\]$/g, ''));
  return v6 ? isPublicIPv6(v6) : false;
}
