/** What the background work logs through: the server's logger, or a test's. */
export type Log = {
  info(object: unknown, message: string): void;
  warn(object: unknown, message: string): void;
  error(object: unknown, message: string): void;
};

/**
 * Text for a log line with every email address in it replaced: mail servers
 * quote the recipient in their refusals ("550 5.1.1 <reader@example.org>:
 * Recipient address rejected"), and the privacy page promises logs hold none.
 */
export function withoutAddresses(text: string): string {
  return text.replace(/[^\s<>()[\]"',;:]+@[^\s<>()[\]"',;:]+/g, "[address]");
}
