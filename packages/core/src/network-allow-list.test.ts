import { parseAllowListEntry } from './network-allow-list.js';

describe('parseAllowListEntry', () => {
  it('reads CIDRs, addresses as networks of one and host names (lower-cased)', () => {
    expect(parseAllowListEntry('10.0.0.0/8')).toEqual({ cidr: ['10.0.0.0', 8, 'ipv4'] });
    expect(parseAllowListEntry('10.1.2.3')).toEqual({ cidr: ['10.1.2.3', 32, 'ipv4'] });
    expect(parseAllowListEntry('fd00::/8')).toEqual({ cidr: ['fd00::', 8, 'ipv6'] });
    expect(parseAllowListEntry('::1')).toEqual({ cidr: ['::1', 128, 'ipv6'] });
    expect(parseAllowListEntry('Hooks.Internal')).toEqual({ host: 'hooks.internal' });
  });

  it.each([
    '127.0.0.1/33',
    '::1/129',
    '10.0.0.0/',
    '10.0.0.0/8/1',
    '10.0.0.0/+8',
    'host/8',
    'https://x',
    '-x',
  ])('refuses %s', (entry) => expect(parseAllowListEntry(entry)).toBeNull());
});
