import { act, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ChatbotEmbed } from "./chatbot-embed.tsx";

/*
 * The third-party chatbot, when one is configured (docs/product.md, "Chat
 * with Me"): its script goes into the page when the area is shown, told the
 * bot, the inline display and the container, and goes with the page when the
 * reader leaves it. The provider is outside this machine: its script's load
 * and error events stand in for it.
 */
const chatbot = { scriptUrl: "https://chatbot.invalid/embed.js", botId: "test-bot" };
const scripts = () => document.querySelectorAll(`script[src="${chatbot.scriptUrl}"]`);

describe("ChatbotEmbed", () => {
  it("adds the provider's script with its settings, and removes it on leaving", () => {
    const view = render(<ChatbotEmbed chatbot={chatbot} />);
    expect(scripts()).toHaveLength(1);
    const script = scripts()[0] as HTMLScriptElement;
    expect(script.dataset).toMatchObject({
      botId: "test-bot",
      display: "inline",
      container: "chatbot-embed",
    });
    view.unmount();
    expect(scripts()).toHaveLength(0);
  });

  it("offers the contact address when the provider's script cannot load", () => {
    render(<ChatbotEmbed chatbot={chatbot} />);
    act(() => {
      scripts()[0]?.dispatchEvent(new Event("error"));
    });
    expect(screen.getByText("The chat assistant is not available right now.")).toBeTruthy();
  });
});
