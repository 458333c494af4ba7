/**
 * "1 comment", "2 comments": a count with its noun (`many` when the plural is
 * not `one` + s). The browser and the server count in the same words, so it
 * lives here, below both (docs/architecture.md, "Layers").
 */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
