import { useEffect, useRef, useState } from "react";
import type { PublicConfig } from "../../../contract/site-config.ts";
import { siteConfig } from "../../lib/site-config.ts";

const chatbotContainerId = "chatbot-embed";

type Status = "loading" | "ready" | "unavailable";

/**
 * The provider's embed script is added when the services page opens (the
 * island hydrates once the page has loaded) and goes with the page when the
 * reader leaves (docs/product.md, "Services"). It is told the bot id, the inline display and the
 * container through data attributes. Without a configured chatbot, or when its
 * script cannot load, the area offers the contact email instead of an empty box.
 */
export function ChatbotEmbed({
  chatbot = siteConfig.chatbot,
}: {
  /** The provider's settings, baked in at build time (tests give their own). */
  chatbot?: PublicConfig["chatbot"];
}) {
  const [status, setStatus] = useState<Status>(chatbot ? "loading" : "unavailable");
  const container = useRef<HTMLDivElement>(null);

  const scriptUrl = chatbot?.scriptUrl;
  const botId = chatbot?.botId;

  // Settings are fixed at build time: the script goes in once per visit to the page.
  useEffect(() => {
    if (!scriptUrl || !botId) return;
    const script = document.createElement("script");
    script.src = scriptUrl;
    script.async = true;
    script.dataset.botId = botId;
    script.dataset.display = "inline";
    script.dataset.container = chatbotContainerId;
    script.addEventListener("load", () => setStatus("ready"));
    script.addEventListener("error", () => setStatus("unavailable"));
    document.body.appendChild(script);
    const host = container.current;
    return () => {
      script.remove();
      host?.replaceChildren();
    };
  }, [scriptUrl, botId]);

  return (
    <div className="relative h-[500px] max-h-[calc(100dvh-8.5rem)] overflow-hidden rounded-2xl border border-line bg-ink">
      <div id={chatbotContainerId} ref={container} className="h-full w-full" />
      {status === "unavailable" ? (
        <div className="absolute inset-0 grid place-items-center p-8 text-center">
          <div>
            <p className="text-lg font-semibold text-slate-100">
              The chat assistant is not available right now.
            </p>
            <p className="mt-3 text-slate-300">
              Write to me instead and I will answer personally:{" "}
              <a
                href={`mailto:${siteConfig.contactEmail}`}
                className="font-semibold text-accent underline"
              >
                {siteConfig.contactEmail}
              </a>
            </p>
          </div>
        </div>
      ) : null}
      {status === "loading" ? (
        <p className="absolute inset-0 grid place-items-center text-slate-400">
          Loading the chat assistant…
        </p>
      ) : null}
    </div>
  );
}
