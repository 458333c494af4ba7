import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useRef,
  useState,
} from "react";
import { ownerCommentsTopic } from "../../contract/event-names.ts";
import { consoleApi } from "./console-api.ts";

type Live = {
  /** Whether the stream of comment events is open. */
  connected: boolean;
  /**
   * Calls `listener` on every comment event, and each time the stream
   * (re)opens: a comment written while it was opening is then read too.
   */
  onComment(listener: () => void): () => void;
  /** Comments awaiting approval, once known: the nav's badge and the Overview's call. */
  pending: number | null;
  /** Reads the number again, after the owner acted on the queue. */
  recount(): void;
};

const LiveContext = createContext<Live>({
  connected: false,
  onComment: () => () => {},
  pending: null,
  recount: () => {},
});

/**
 * One stream of comment events for the whole console page, shared by the
 * Comments screen and the badge, so a page holds one connection whatever it
 * shows. It is the readers' endpoint on the owner's topic (every comment,
 * held ones included: docs/architecture.md, "Live updates"), so a reconnect
 * replays what was missed from the last event's id, as a reader's does; when
 * that cannot be told (`resync`), everything is read again.
 */
export function LiveProvider({ children }: { children: ReactNode }) {
  const [connected, setConnected] = useState(false);
  const [pending, setPending] = useState<number | null>(null);
  const listeners = useRef(new Set<() => void>());
  const latest = useRef(0);

  const recount = useCallback(() => {
    const current = ++latest.current;
    consoleApi("GET /admin/comments/queue").then(
      (queue) => {
        if (current === latest.current) setPending(queue.pending);
      },
      () => {},
    );
  }, []);

  useEffect(() => {
    const source = new EventSource(`/api/events?topic=${encodeURIComponent(ownerCommentsTopic)}`);
    const changed = () => {
      recount();
      for (const listener of listeners.current) listener();
    };
    source.addEventListener("ready", () => {
      setConnected(true);
      changed();
    });
    source.addEventListener("comment", changed);
    source.addEventListener("resync", changed);
    source.onerror = () => setConnected(false);
    return () => source.close();
  }, [recount]);

  const onComment = useCallback((listener: () => void) => {
    listeners.current.add(listener);
    return () => {
      listeners.current.delete(listener);
    };
  }, []);

  return (
    <LiveContext.Provider value={{ connected, onComment, pending, recount }}>
      {children}
    </LiveContext.Provider>
  );
}

export function useLive(): Live {
  return useContext(LiveContext);
}

/** Calls `onChange` whenever a comment changes anywhere on the site; whether the stream is open. */
export function useLiveComments(onChange: () => void): boolean {
  const { connected, onComment } = useLive();
  useEffect(() => onComment(onChange), [onComment, onChange]);
  return connected;
}
