import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { ReactionsResponse } from "../../contract/api.ts";
import type { LiveEventName } from "../../contract/event-names.ts";
import { type ItemKind, reactionTypes } from "../../contract/limits.ts";
import type { CommentEvent, ItemEventPayloads, ReactionEvent } from "../../contract/live-events.ts";
import { type LoadedComments, missesThread, withEvent } from "./comment-list.ts";
import { itemKeys } from "./query-keys.ts";
import { readAgain } from "./read-again.ts";

function reload(queryClient: QueryClient, kind: ItemKind, id: string) {
  readAfterToggles(queryClient, itemKeys.reactions(kind, id));
  if (kind === "science")
    void readAgain(queryClient, { queryKey: itemKeys.comments(id), exact: true });
}

/**
 * Reads the reactions again once none of this visitor's toggles of them is on
 * its way. A read made beside a toggle can reach the server before the toggle
 * commits: its answer, landing before or after the toggle's, would show the
 * reaction un-held again, and could leave it so. The toggle's own answer is
 * the server's state when it committed; the read after it brings what others
 * changed while the stream was opening.
 */
function readAfterToggles(queryClient: QueryClient, queryKey: readonly unknown[]) {
  const toggles = { mutationKey: queryKey, exact: true };
  const read = () => void readAgain(queryClient, { queryKey, exact: true });
  if (queryClient.isMutating(toggles) === 0) return read();
  const stop = queryClient.getMutationCache().subscribe(() => {
    if (queryClient.isMutating(toggles) > 0) return;
    stop();
    read();
  });
}

/**
 * An event applied to a cached answer. A read still in flight may have left
 * the server before the write it reports committed: its answer would replace
 * the event's change with the older state when it lands. So that read is
 * abandoned and made again, after the commit (docs/architecture.md, "Live
 * updates"). This happens only while the item is being read, as when the
 * stream opens, so a reader's ordinary events still cost no request.
 */
function applyEvent<Data>(
  queryClient: QueryClient,
  queryKey: readonly unknown[],
  change: (data: Data) => Data,
) {
  queryClient.setQueryData<Data>(queryKey, (data) => (data === undefined ? data : change(data)));
  const filters = { queryKey, exact: true };
  if (queryClient.isFetching(filters) > 0) void readAgain(queryClient, filters);
}

/**
 * New counts for everyone; what this visitor holds is theirs alone and stays
 * as it was. While a toggle of theirs is on its way, an event's counts may
 * have been counted before it (another reader's write that committed first:
 * the reader's click would vanish from the count) or after it (the toggle's
 * answer would then hide the event): unless they agree with what is shown,
 * the item is read again once the toggles have their answers.
 */
function applyReaction(queryClient: QueryClient, kind: ItemKind, id: string, event: ReactionEvent) {
  const key = itemKeys.reactions(kind, id);
  if (queryClient.isMutating({ mutationKey: key, exact: true }) > 0) {
    const shown = queryClient.getQueryData<ReactionsResponse>(key)?.counts;
    const agree = reactionTypes.every((type) => shown?.[type] === event.counts[type]);
    if (!agree) readAfterToggles(queryClient, key);
    return;
  }
  applyEvent<ReactionsResponse>(queryClient, key, (data) => ({ ...data, counts: event.counts }));
}

/**
 * A comment added, edited, deleted or held again, applied to what the reader
 * has loaded. A reply in a thread the fold holds makes that thread one of the
 * latest: the list is read again, and opens with it
 * (docs/decisions/032-long-discussions-open-at-both-ends.md).
 */
function applyComment(queryClient: QueryClient, id: string, event: CommentEvent) {
  const key = itemKeys.comments(id);
  const loaded = queryClient.getQueryData<LoadedComments>(key);
  applyEvent<LoadedComments>(queryClient, key, (data) => withEvent(data, event));
  if (loaded && missesThread(loaded, event))
    void readAgain(queryClient, { queryKey: key, exact: true });
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
