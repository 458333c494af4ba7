import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { ItemKind } from "../../../contract/limits.ts";

export const itemKeys = {
  reactions: (kind: ItemKind, id: string) => ["reactions", kind, id] as const,
  comments: (id: string) => ["comments", id] as const,
};

function reload(queryClient: QueryClient, kind: ItemKind, id: string) {
  void queryClient.invalidateQueries({ queryKey: itemKeys.reactions(kind, id) });
  if (kind === "science") void queryClient.invalidateQueries({ queryKey: itemKeys.comments(id) });
}

/**
 * Follows the item's event stream while mounted. Every change reloads the item
 * (SPEC §4), which also brings the caller's own `mine` flags up to date; after a
 * reconnect the server replays missed events or asks for a resync.
 */
export function useLiveItem(kind: ItemKind, id: string) {
  const queryClient = useQueryClient();
  useEffect(() => {
    const source = new EventSource(`/api/events?topic=${encodeURIComponent(`${kind}:${id}`)}`);
    const onChange = () => reload(queryClient, kind, id);
    for (const name of ["reaction", "comment", "resync"]) source.addEventListener(name, onChange);
    return () => source.close();
  }, [queryClient, kind, id]);
}
