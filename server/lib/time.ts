/** Timestamps leave the store as ISO-8601 UTC strings, whichever database holds them. */
export function toIso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : value;
}

export function nowIso(): string {
  return new Date().toISOString();
}
