import { useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useContext, useEffect, useState } from "react";
import { ownerCommentsTopic } from "../../contract/event-names.ts";
import { readAgain } from "../lib/read-again.ts";
import { useConsoleData } from "./console-api.ts";

type Live = {
  /** Whether the stream of comment events is open. */
  connected: boolean;
  /** Comments awaiting approval, once known: the nav's badge and the Overview's call. */
  pending: number | null;
  /** Reads the number again, after the owner acted on the queue. */
  recount(): void;
};

const LiveContext = createContext<Live>({ connected: false, pending: null, recount: () => {} });

/**
 * One stream of comment events for the whole console page, shared by the
 * Comments screen and the badge, so a page holds one connection whatever it
 * shows. It is the readers' endpoint on the owner's topic (every comment,
 * held ones included: docs/architecture.md, "Live updates"), so a reconnect
 * replays what was missed from the last event's id, as a reader's does; when
 * that cannot be told (`resync`), everything is read again. Each event, and
 * each (re)opening of the stream (a comment written while it opened is then
 * read too), reads the comments and the number awaiting approval again.
 */
export function LiveProvider({ children }: { children: ReactNode }) {
  const [connected, setConnected] = useState(false);
  const queryClient = useQueryClient();
  const queue = useConsoleData("GET /admin/comments/queue");
  const { reload: recount } = queue;

  useEffect(() => {
    const source = new EventSource(`/api/events?topic=${encodeURIComponent(ownerCommentsTopic)}`);
    const changed = () => {
      void recount();
      void readAgain(queryClient, { queryKey: ["GET /admin/comments"] });
    };
    source.addEventListener("ready", () => {
      setConnected(true);
      changed();
    });
    source.addEventListener("comment", changed);
    source.addEventListener("resync", changed);
    source.onerror = () => setConnected(false);
    return () => source.close();
  }, [recount, queryClient]);

  // A failed read keeps the number read before it.
  const pending = queue.data?.pending ?? null;
  return (
    <LiveContext.Provider value={{ connected, pending, recount }}>{children}</LiveContext.Provider>
  );
}

export function useLive(): Live {
  return useContext(LiveContext);
}
