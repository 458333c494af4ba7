import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { CommentsResponse, ReactionsResponse } from "../../../contract/api.ts";
import type { ItemKind } from "../../../contract/limits.ts";
import type { CommentEvent, ReactionEvent } from "../../../contract/live-events.ts";

export const itemKeys = {
  reactions: (kind: ItemKind, id: string) => ["reactions", kind, id] as const,
  comments: (id: string) => ["comments", id] as const,
};

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

/**
 * A comment added (or approved), edited, deleted or held again; a comment this
 * browser wrote stays marked as its own, and one held again stays on its
 * writer's page as awaiting approval.
 */
function applyComment(queryClient: QueryClient, id: string, event: CommentEvent) {
  queryClient.setQueryData<CommentsResponse>(itemKeys.comments(id), (data) => {
    if (!data) return data;
    if (!("comment" in event)) {
      return {
        comments: data.comments.flatMap((comment) => {
          if (comment.id !== event.commentId) return [comment];
          return event.action === "held" && comment.mine
            ? [{ ...comment, awaitingApproval: true }]
            : [];
        }),
      };
    }
    const known = data.comments.find((comment) => comment.id === event.commentId);
    const comment = { ...event.comment, mine: known?.mine ?? false, awaitingApproval: false };
    return {
      comments: known
        ? data.comments.map((c) => (c.id === comment.id ? comment : c))
        : [...data.comments, comment],
    };
  });
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
    let opened = false;
    source.addEventListener("ready", () => {
      if (opened) return;
      opened = true;
      reload(queryClient, kind, id);
      setLive(true);
    });
    source.addEventListener("resync", () => reload(queryClient, kind, id));
    source.addEventListener("reaction", (message) =>
      applyReaction(queryClient, kind, id, JSON.parse(message.data) as ReactionEvent),
    );
    source.addEventListener("comment", (message) =>
      applyComment(queryClient, id, JSON.parse(message.data) as CommentEvent),
    );
    return () => source.close();
  }, [queryClient, kind, id]);
  return live;
}
