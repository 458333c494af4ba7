import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { ReactionsResponse } from "../../contract/api.ts";
import type { LiveEventName } from "../../contract/event-names.ts";
import type { ItemKind } from "../../contract/limits.ts";
import type { CommentEvent, ItemEventPayloads, ReactionEvent } from "../../contract/live-events.ts";
import { type LoadedComments, withEvent } from "./comment-list.ts";
import { itemKeys } from "./query-keys.ts";

function reload(queryClient: QueryClient, kind: ItemKind, id: string) {
  void queryClient.invalidateQueries({ queryKey: itemKeys.reactions(kind, id) });
  if (kind === "science") void queryClient.invalidateQueries({ queryKey: itemKeys.comments(id) });
}

/** New counts for everyone; what this visitor holds is theirs alone and stays as it was. */
function applyReaction(queryClient: QueryClient, kind: ItemKind, id: string, event: ReactionEvent) {
  queryClient.setQueryData<ReactionsResponse>(itemKeys.reactions(kind, id), (data) =>
    data ? { ...data, counts: event.counts } : data,
  );
}

/** A comment added, edited, deleted or held again, applied to what the reader has loaded. */
function applyComment(queryClient: QueryClient, id: string, event: CommentEvent) {
  queryClient.setQueryData<LoadedComments>(itemKeys.comments(id), (data) =>
    data ? withEvent(data, event) : data,
  );
}

/**
 * Follows the item's event stream while mounted (docs/architecture.md,
 * "Live updates"). Events carry what changed, and are applied to the cached
 * answers without asking the server. The item is read again only when the
 * server asks for it (`resync`: events were missed) and once when the stream
 * first opens, which covers a write that committed while it was opening.
 * Returns whether the stream has opened (and that reload begun).
 */
export function useLiveItem(kind: ItemKind, id: string): boolean {
  const queryClient = useQueryClient();
  const [live, setLive] = useState(false);
  useEffect(() => {
    const source = new EventSource(`/api/events?topic=${encodeURIComponent(`${kind}:${id}`)}`);
    const on = (name: LiveEventName, listener: (message: MessageEvent<string>) => void) =>
      source.addEventListener(name, listener);
    const payload = <Name extends keyof ItemEventPayloads>(
      _: Name,
      message: MessageEvent<string>,
    ) => JSON.parse(message.data) as ItemEventPayloads[Name];
    let opened = false;
    on("ready", () => {
      if (opened) return;
      opened = true;
      reload(queryClient, kind, id);
      setLive(true);
    });
    on("resync", () => reload(queryClient, kind, id));
    on("reaction", (message) => applyReaction(queryClient, kind, id, payload("reaction", message)));
    on("comment", (message) => applyComment(queryClient, id, payload("comment", message)));
    return () => source.close();
  }, [queryClient, kind, id]);
  return live;
}
