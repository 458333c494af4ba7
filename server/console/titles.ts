import type { ItemIndex } from "../../content/catalog.ts";

type Kind = "mythology" | "science";

export type ItemTitles = {
  of(kind: Kind, id: string): string;
  /** Every item of a kind the content holds, by title. */
  list(kind: Kind): { id: string; title: string }[];
};

/**
 * The titles of stories and science posts, for the console's lists and charts,
 * from the content's item index (content/catalog.ts). An item the content does
 * not know (removed since it was commented on) is shown by its id.
 */
export function itemTitles(index: ItemIndex): ItemTitles {
  return {
    of: (kind, id) => index[kind].get(id) ?? id,
    list: (kind) =>
      [...index[kind]]
        .map(([id, title]) => ({ id, title }))
        .sort((a, b) => a.title.localeCompare(b.title)),
  };
}
