import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useEffect, useRef, useState } from "react";
import type { ItemKind, ReactionType } from "../../contract/limits.ts";
import { CommentSection } from "../features/comments/comment-section.tsx";
import { useOwnerOverlay } from "../features/comments/use-comments.ts";
import { useReactions, useToggleReaction } from "../features/reactions/use-reactions.ts";
import { NameDialog } from "../features/visitor-name/name-dialog.tsx";
import { useDisplayName } from "../features/visitor-name/name-store.ts";
import { ApiError } from "../lib/api-client.ts";
import { useLiveItem } from "../lib/live-item.ts";
import { NameLine, panelClasses, ReactionGroup, reactionRowClasses } from "./panel-frame.tsx";

// No retries (docs/product.md, "When something fails"); fresh data comes from
// the live stream, not from polling.
const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: Number.POSITIVE_INFINITY },
    mutations: { retry: false },
  },
});

type PanelProps = {
  kind: ItemKind;
  itemId: string;
  title: string;
  /** The comments' heading: h4 in a card, h3 on an item's own page. */
  commentsHeading?: "h3" | "h4";
  /** The server's copy of the comments, shown until the live ones arrive. */
  children?: ReactNode;
};

export default function EngagementPanel(props: PanelProps) {
  return (
    <QueryClientProvider client={queryClient}>
      <Panel {...props} />
    </QueryClientProvider>
  );
}

function Panel({ kind, itemId, title, commentsHeading, children }: PanelProps) {
  const live = useLiveItem(kind, itemId);
  const userName = useDisplayName();
  // The signed-in owner comments under SITE_OWNER_NAME, which no prompt changes
  // (docs/decisions/016-owner-voice.md).
  const overlay = useOwnerOverlay(kind === "science" ? itemId : null);
  const ownerName = overlay?.name;
  const commentName = ownerName ?? userName;
  const shownName = kind === "science" ? commentName : userName;
  const [askName, setAskName] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  // The control that opened the name prompt, which gets focus back when it closes.
  const opener = useRef<HTMLElement | null>(null);
  function promptForName() {
    const active = document.activeElement;
    opener.current =
      active instanceof HTMLElement && root.current?.contains(active) ? active : null;
    setAskName(true);
  }
  function focusAfterPrompt() {
    if (opener.current?.isConnected) return opener.current;
    // "Add a comment" gives way to the comment box once a name is set.
    return (
      root.current?.querySelector<HTMLElement>('textarea[aria-label="Write a comment"]') ?? null
    );
  }
  const [notice, showNotice] = useNotice(5000);
  // Failures stay silent, but a 429 is explained (docs/product.md, "When something fails"), and
  // a banned reader is told on every refused action, a reaction as much as a comment.
  const onError = (error: unknown) => {
    if (!(error instanceof ApiError)) return;
    if (error.status === 429)
      showNotice("You're going a little fast. Please slow down and try again in a moment.");
    else if (error.code === "banned") showNotice(error.message);
  };
  const reactions = useReactions(kind, itemId);
  const toggle = useToggleReaction(kind, itemId, onError);
  const held = new Set(reactions.data?.mine ?? []);

  function react(type: ReactionType) {
    // Without a name, ask for one; the click itself is not replayed.
    if (!userName) {
      promptForName();
      return;
    }
    toggle.mutate({ type, userName, held: held.has(type) });
  }

  return (
    <div ref={root} data-live={live} className={panelClasses}>
      <div className={reactionRowClasses}>
        <ReactionGroup
          title={title}
          counts={reactions.data?.counts ?? null}
          held={held}
          onReact={react}
        />
        {shownName ? (
          <NameLine
            kind={kind}
            name={shownName}
            onChange={shownName === ownerName ? undefined : promptForName}
          />
        ) : overlay === undefined ? (
          // Until the comments say whether this is the owner: the placeholder's line, kept.
          <NameLine kind={kind} name={null} />
        ) : null}
      </div>
      {notice ? (
        <p
          role="alert"
          className="rounded-lg border border-amber-400/40 bg-amber-400/10 px-4 py-2 text-sm text-amber-200"
        >
          {notice}
        </p>
      ) : null}
      {kind === "science" ? (
        <CommentSection
          postId={itemId}
          title={title}
          userName={commentName}
          onNeedName={promptForName}
          onError={onError}
          heading={commentsHeading}
          served={children}
        />
      ) : null}
      <NameDialog
        open={askName}
        onClose={() => setAskName(false)}
        returnFocusTo={focusAfterPrompt}
      />
    </div>
  );
}

/** A message that disappears by itself after `duration` ms. */
function useNotice(duration: number) {
  const [message, setMessage] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const show = (text: string) => {
    clearTimeout(timer.current);
    setMessage(text);
    timer.current = setTimeout(() => setMessage(null), duration);
  };
  return [message, show] as const;
}
