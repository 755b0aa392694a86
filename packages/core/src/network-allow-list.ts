/**
 * The entries of the gateways' network allow-list (`ODP_GATEWAY_ALLOWED_NETWORKS`): a CIDR
 * (`10.0.0.0/8`, `fd00::/8`), an address (a network of one), or a host name. One parser, so the
 * configuration refuses at start-up exactly what the gateways' address policy could not use.
 */
import { isIP } from 'node:net';

export type AllowListEntry =
  | { readonly cidr: readonly [address: string, prefix: number, family: 'ipv4' | 'ipv6'] }
  | { readonly host: string };

const HOST_NAME = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i;

/** The entry (host names lower-cased), or null when `entry` is no host name, address or CIDR. */
export function parseAllowListEntry(entry: string): AllowListEntry | null {
  const [address = '', bits, extra] = entry.split('/');
  if (extra !== undefined) return null;
  const family = isIP(address);
  if (family === 0)
    return bits === undefined && HOST_NAME.test(address) ? { host: address.toLowerCase() } : null;
  const max = family === 4 ? 32 : 128;
  if (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max)) return null;
  return { cidr: [address, bits === undefined ? max : Number(bits), family === 4 ? 'ipv4' : 'ipv6'] };
}
