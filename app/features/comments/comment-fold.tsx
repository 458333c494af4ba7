import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { CommentText } from "./comment-view.ts";

/**
 * A comment's text in the live island, folded when it is long (docs/product.md,
 * "Long comments"): it stops at a fixed height, and "Read the whole comment"
 * shows the rest and moves focus to the text, where reading goes on. Focus
 * landing inside the folded part (a link, by Tab) unfolds it too. Whether it
 * is long is measured, so a comment folds at every width only when it would
 * be taller than that height. The page as served shows every comment whole:
 * without JavaScript nothing folds.
 */
export function FoldingCommentText({ id, html }: { id: number; html: string }) {
  const text = useRef<HTMLDivElement>(null);
  const [whole, setWhole] = useState(false);
  const [long, setLong] = useState(false);
  const revealed = useRef(false);

  // biome-ignore lint/correctness/useExhaustiveDependencies: an edited text is measured again
  useLayoutEffect(() => {
    const element = text.current;
    if (!element || whole) return;
    const measure = () => setLong(element.scrollHeight > element.clientHeight + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [whole, html]);

  useEffect(() => {
    if (!whole || !revealed.current) return;
    revealed.current = false;
    text.current?.focus();
  }, [whole]);

  const textId = `comment-text-${id}`;
  return (
    <>
      <CommentText
        html={html}
        fold={{
          ref: text,
          id: textId,
          tabIndex: -1,
          className: whole
            ? ""
            : long
              ? "comment-text-folded comment-text-long"
              : "comment-text-folded",
          onFocus: () => setWhole(true),
        }}
      />
      {long && !whole ? (
        <button
          type="button"
          aria-controls={textId}
          onClick={() => {
            revealed.current = true;
            setWhole(true);
          }}
          className="mt-2 rounded-lg px-3 py-1 text-xs font-semibold text-accent ring-1 ring-line hover:bg-white/5"
        >
          Read the whole comment
        </button>
      ) : null}
    </>
  );
}
