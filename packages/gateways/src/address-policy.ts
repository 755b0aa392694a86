/**
 * Which network addresses an outbound gateway call may reach (SSRF protection). A host name is
 * resolved once; every address it resolves to must be public, or the call is refused; the call
 * then connects to that resolved address only (pinned), so a second, different DNS answer cannot
 * redirect it. Redirects are checked again, hop by hop, by the caller.
 *
 * Refused: loopback, private (RFC 1918, unique local fc00::/7), link-local (169.254/16, fe80::/10),
 * carrier-grade NAT (100.64/10), unspecified, multicast, broadcast and reserved ranges, the
 * documentation ranges, and every IPv6 form that carries an IPv4 address or tunnels to one, whatever
 * the IPv4 inside: IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), IPv4-compatible
 * (::/96), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4 (2002::/16) and Teredo (2001::/32, within
 * the IETF protocol assignments 2001::/23). The whole range is refused rather than judged by the
 * embedded IPv4, which is stricter: a private or loopback IPv4 cannot be smuggled in any spelling,
 * and a tunnel's relay (whose egress this process does not know) is never used. `allowed` (configuration, `ODP_GATEWAY_ALLOWED_NETWORKS`) lists host
 * names or CIDRs that are reachable anyway: an on-premises receiver, or a test receiver on 127.0.0.1.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { parseAllowListEntry } from '@odp/core';

const REFUSED_V4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const;

const REFUSED_V6 = [
  ['::', 128],
  ['::1', 128],
  ['::', 96],
  ['::ffff:0:0', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const;

/** A refused destination: never retried (the address will not become public by waiting). */
export class AddressRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AddressRefusedError';
  }
}

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

export type Resolver = (host: string) => Promise<readonly ResolvedAddress[]>;

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4,
  }));

export class AddressPolicy {
  // One list per family: a BlockList matches IPv4 addresses against IPv4-mapped IPv6 rules too, and
  // ::ffff:0:0/96 would then refuse every IPv4 address.
  private readonly refusedV4 = new BlockList();
  private readonly refusedV6 = new BlockList();
  private readonly allowedNetworks = new BlockList();
  private readonly allowedHosts = new Set<string>();

  constructor(
    allowed: readonly string[] = [],
    private readonly resolve: Resolver = systemResolver,
  ) {
    for (const [address, prefix] of REFUSED_V4) this.refusedV4.addSubnet(address, prefix, 'ipv4');
    for (const [address, prefix] of REFUSED_V6) this.refusedV6.addSubnet(address, prefix, 'ipv6');
    for (const entry of allowed) {
      const parsed = parseAllowListEntry(entry.trim());
      if (parsed === null) throw new Error(`Invalid network allow-list entry ${entry}.`);
      if ('host' in parsed) this.allowedHosts.add(parsed.host);
      else this.allowedNetworks.addSubnet(...parsed.cidr);
    }
  }

  /** Whether a connection to this literal address is allowed. */
  allowsAddress(address: string): boolean {
    const family = isIP(address);
    if (family === 0) return false;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.allowedNetworks.check(address, type)) return true;
    return !(family === 4 ? this.refusedV4 : this.refusedV6).check(address, type);
  }

  /**
   * The address to connect to for `host` (a name or an IP literal, IPv6 without brackets): the
   * first resolved address, when every resolved address is allowed (a name allowed by the list
   * skips the check). Throws AddressRefusedError otherwise; DNS failures are thrown as they come.
   */
  async pin(host: string): Promise<ResolvedAddress> {
    const name = host.toLowerCase().replace(/^\[|\]$/g, '');
    const literal = isIP(name);
    const addresses: readonly ResolvedAddress[] =
      literal === 0 ? await this.resolve(name) : [{ address: name, family: literal === 6 ? 6 : 4 }];
    const first = addresses[0];
    if (first === undefined) throw new AddressRefusedError(`${name} does not resolve to an address.`);
    if (this.allowedHosts.has(name)) return first;
    const refused = addresses.find((entry) => !this.allowsAddress(entry.address));
    if (refused) {
      throw new AddressRefusedError(
        `${name} resolves to ${refused.address}, a loopback, private, link-local or reserved address.`,
      );
    }
    return first;
  }
}
