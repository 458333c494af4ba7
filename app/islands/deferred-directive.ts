import type { ClientDirective } from "astro";

/**
 * `client:deferred`: an island hydrates once the page has loaded and the
 * browser is idle (or, with `{ visible: true }`, once it scrolls into view), so
 * no framework JavaScript competes with the page's own loading. With
 * `{ on: "interaction" }` it waits for the reader instead: an island whose
 * HTML already does its job (tabs showing their default panel, cards that are
 * <details>, a menu button) costs nothing until it is used, or until the URL's
 * `#fragment` names something inside it, and `scroll: true` adds the first
 * scroll of the page (the header's scrolled look). With `{ activity: true }`
 * an island that is not needed before the reader is there (the enquiry form,
 * below the fold of /services) waits, after `load`, for the reader's first
 * scroll, pointer movement, key or touch anywhere on the page, or, with
 * `visible`, for coming into view, whichever is first: a page nobody touches
 * runs no React (docs/decisions/049-nothing-long-after-load.md). With `tab`,
 * a `visible` island also wakes at the reader's first Tab anywhere: a reader
 * on the keyboard moves by its controls, which are disabled until it is live,
 * and Tab would pass them by before it scrolled into view. A reader who
 * interacts first hydrates it at once, and loses nothing:
 *
 * - a click on a plain button (menu toggle, tab, reaction) is held and replayed
 *   on the same element once the island is live: hydration reuses the
 *   server-rendered nodes, so the element is still the one clicked;
 * - so is a plain click on a link that a script has marked as opening a popup
 *   (`aria-haspopup`, the header's Search): the island opens it rather than
 *   the link's page; and a click on a submit button marked `data-replay`, whose
 *   form holds nothing typed (a service page's suggested question): the island
 *   sends it in place. Should the island fail to load, either click goes on to
 *   the page after all;
 * - what works without JavaScript keeps working natively: links, a <summary>
 *   opening its <details>, any other form's own submission, typing into a
 *   field. The island reads that state when it takes over.
 *
 * This file is inlined into every page that has an island: keep it small.
 */
export type DeferredOptions = {
  visible?: boolean;
  activity?: boolean;
  tab?: boolean;
  on?: "interaction";
  scroll?: boolean;
};

const deferred: ClientDirective = (load, options, island) => {
  let started = false;
  let live = false;
  let held: HTMLElement | null = null;
  // A press that began before the island was live: if it goes live before the
  // press's click arrives, the widget missed the press (tabs act on it), so
  // that click is replayed whole too.
  let pressed = false;
  const press = () => {
    pressed = true;
  };

  const hydrate = async () => {
    if (started) return;
    started = true;
    try {
      const run = await load();
      await run();
    } finally {
      live = true;
      island.removeEventListener("pointerdown", press, true);
      const target = held;
      held = null;
      if (!pressed || target) island.removeEventListener("click", hold, true);
      if (target?.isConnected) replayClick(target);
    }
  };

  const hold = (event: MouseEvent) => {
    const target = (event.target as Element).closest?.("button,[role=tab],a[aria-haspopup]");
    const link = target instanceof HTMLAnchorElement;
    const plain = !(event.ctrlKey || event.metaKey || event.shiftKey || event.altKey);
    const replayable =
      target instanceof HTMLElement &&
      (link
        ? plain
        : (target as HTMLButtonElement).type !== "submit" || "replay" in target.dataset);
    if (live) island.removeEventListener("click", hold, true);
    if (replayable) {
      if (link || "replay" in target.dataset) event.preventDefault();
      event.stopImmediatePropagation();
      if (live) replayClick(target);
      else held = target;
    }
    void hydrate();
  };

  island.addEventListener("click", hold, true);
  island.addEventListener("pointerdown", press, true);
  for (const type of ["keydown", "focusin", "input", "touchstart", "pointerover"]) {
    island.addEventListener(type, hydrate, { once: true, passive: true });
  }

  const { visible, activity, on, scroll, tab } = (options.value ?? {}) as DeferredOptions;
  if (on === "interaction") {
    const linkedInside = () => {
      const id = decodeURIComponent(location.hash.slice(1));
      if (id && island.contains(document.getElementById(id))) void hydrate();
    };
    linkedInside();
    addEventListener("hashchange", linkedInside);
    if (scroll) addEventListener("scroll", hydrate, { once: true, passive: true });
    return;
  }

  const whenLoaded = () => {
    if (activity) {
      const types = ["scroll", "pointermove", "keydown", "touchstart"];
      const woken = (event: Event) => {
        // A pointer at rest over the page is sent a pointermove with no movement
        // whenever the layout under it changes: that is not the reader moving. (A
        // page's first pointermove has none either: a moving pointer sends more.)
        const { movementX, movementY } = event as PointerEvent;
        if (event.type === "pointermove" && !movementX && !movementY) return;
        for (const type of types) removeEventListener(type, woken);
        void hydrate();
      };
      for (const type of types) addEventListener(type, woken, { passive: true });
    }
    if (tab)
      addEventListener("keydown", (event) => {
        if (event.key === "Tab") void hydrate();
      });
    if (visible) {
      const observer = new IntersectionObserver((entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          observer.disconnect();
          void hydrate();
        }
      });
      for (const child of island.children) observer.observe(child);
    } else if (!activity) {
      if ("requestIdleCallback" in window)
        requestIdleCallback(() => void hydrate(), { timeout: 2000 });
      else setTimeout(hydrate, 200);
    }
  };
  if (document.readyState === "complete") whenLoaded();
  else addEventListener("load", whenLoaded, { once: true });
};

/** Widgets listen to different parts of a click (tabs to mousedown, dialogs to click). */
function replayClick(target: HTMLElement) {
  for (const type of ["pointerdown", "mousedown", "pointerup", "mouseup"]) {
    const init = { bubbles: true, cancelable: true, button: 0, composed: true };
    target.dispatchEvent(
      type.startsWith("pointer") ? new PointerEvent(type, init) : new MouseEvent(type, init),
    );
  }
  target.click();
}

export default deferred;
