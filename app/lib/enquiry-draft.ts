/**
 * The question a reader asked the assistant, handed to the enquiry form in the
 * browser when they press "Send an enquiry" (docs/product.md, "Chat with Me"):
 * never in the link's address, which the browser's history, access logs and
 * the Referer keep. It waits in the tab's session storage until the form takes
 * it (on the page the link leads to), and a form already live on this page is
 * told at once.
 */
const key = "enquiry-draft";
const offered = "enquiry-draft";

/** Offers `message` to the enquiry form the link `href` leads to. */
export function offerDraft(message: string, href: string): void {
  try {
    sessionStorage.setItem(key, message);
  } catch {
    return; // Storage refused: the form comes empty, as it would to a new reader.
  }
  // Only the form of the page the link leads to: another's would take it on the way out.
  if (new URL(href, window.location.href).pathname === window.location.pathname) {
    window.dispatchEvent(new Event(offered));
  }
}

/** The message offered, once: taking it forgets it. */
export function takeDraft(): string {
  try {
    const message = sessionStorage.getItem(key) ?? "";
    sessionStorage.removeItem(key);
    return message;
  } catch {
    return "";
  }
}

/** Calls `take` with each message offered while the form is live; returns the way to stop. */
export function onDraft(take: (message: string) => void): () => void {
  const listener = () => {
    const message = takeDraft();
    if (message) take(message);
  };
  window.addEventListener(offered, listener);
  return () => window.removeEventListener(offered, listener);
}
