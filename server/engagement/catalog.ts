import type { ItemKind } from "../../contract/limits.ts";

/** The ids of the stories and science posts people may react to and comment on. */
export type Catalog = { readonly [kind in ItemKind]: ReadonlySet<string> };
