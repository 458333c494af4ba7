/** What the background work logs through: the server's logger, or a test's. */
export type Log = {
  info(object: unknown, message: string): void;
  warn(object: unknown, message: string): void;
  error(object: unknown, message: string): void;
};
