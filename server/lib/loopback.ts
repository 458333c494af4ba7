/**
 * Whether `url` names this machine itself (localhost, 127.x.x.x, [::1]): a
 * connection to it never leaves the machine, so no one on the way can read or
 * change it. Plain http is accepted for SITE_URL there alone.
 */
export function isLoopback(url: string): boolean {
  const { hostname } = new URL(url);
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * Whether a mail server's `url` names this machine, or a machine or container
 * of its own network by its short name (`mailserver`, as Docker Compose names
 * a service): no name without a dot is found on the internet. Anywhere else
 * its offer of STARTTLS comes unencrypted and may have been taken out on the
 * way, so the mail and bounce mailbox connections require it.
 */
export function onOwnNetwork(url: string): boolean {
  const { hostname } = new URL(url);
  return isLoopback(url) || !/[.:]/.test(hostname);
}
