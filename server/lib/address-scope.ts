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
