import ipaddr from "ipaddr.js";

/**
 * The part of an address that names one subscriber, for what is counted or
 * banned by address (comments' writers, readers' views): an IPv4 address as
 * it is (also when written as IPv6, `::ffff:…`), an IPv6 address by its /64,
 * which one home or phone is given whole.
 */
export function addressScope(ip: string): string {
  if (!ip.includes(":") || !ipaddr.IPv6.isValid(ip)) return ip;
  const address = ipaddr.IPv6.parse(ip);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  return `${address.parts
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/**
 * The network an address sends from, for what is counted by network: an
 * IPv6 address by its /48 (a site's or a hoster's, which holds 65,536 /64s),
 * any other as addressScope gives it.
 */
export function networkOf(ip: string): string {
  const scope = addressScope(ip);
  if (!scope.endsWith("/64")) return scope;
  const parts = ipaddr.IPv6.parse(ip).parts.slice(0, 3);
  return `${parts.map((group) => group.toString(16)).join(":")}::/48`;
}
