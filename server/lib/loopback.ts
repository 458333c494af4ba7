/**
 * Whether `url` names this machine itself (localhost, 127.x.x.x, [::1]): a
 * connection to it never leaves the machine, so no one on the way can read or
 * change it. Plain http, imap:// and smtp:// without TLS are accepted there alone.
 */
export function isLoopback(url: string): boolean {
  const { hostname } = new URL(url);
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
