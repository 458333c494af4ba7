import { useCallback, useEffect, useRef, useState } from "react";
import { useLocation } from "react-router";

/**
 * One open item at a time (SPEC §4): toggling the open one closes it, opening
 * another closes the previous. A URL hash naming an item opens it and scrolls to
 * it, so /science#pressure-cooker is a link to that answer.
 */
export function useAccordion(ids: readonly string[], onLinked?: (id: string) => void) {
  const { hash } = useLocation();
  const [openId, setOpenId] = useState<string | null>(null);
  // Compared by value, so callers may build the list on every render.
  const idList = ids.join("\n");
  const linked = useRef(onLinked);
  linked.current = onLinked;

  useEffect(() => {
    const target = decodeURIComponent(hash.replace(/^#/, ""));
    if (!idList.split("\n").includes(target)) return;
    setOpenId(target);
    linked.current?.(target);
    requestAnimationFrame(() =>
      document.getElementById(target)?.scrollIntoView({ block: "start" }),
    );
  }, [hash, idList]);

  const toggle = useCallback((id: string) => {
    setOpenId((current) => (current === id ? null : id));
  }, []);

  return { openId, toggle, isOpen: (id: string) => openId === id };
}
