import { act, render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { afterEach, describe, expect, it } from "vitest";
import { type Card, CardList } from "./card-list.tsx";

const cards: Card[] = [
  { id: "wifi", title: "How does Wi-Fi work?", body: <p>Radio waves at 2.4 GHz</p> },
  {
    id: "soap",
    title: "How does soap clean?",
    summary: "Micelles",
    body: <p>Two-faced molecules</p>,
  },
  { id: "gps", title: "How does GPS find you?", body: <p>Four satellites</p> },
];

const trigger = (name: RegExp) => screen.getByRole("button", { name });

/** Renders the list and waits for it to take over from its HTML-only form. */
async function renderList(type: "single" | "multiple", group: string) {
  render(<CardList cards={cards} type={type} group={group} />);
  await screen.findAllByRole("button");
}

afterEach(() => {
  window.location.hash = "";
  document.body.innerHTML = "";
});

describe("CardList", () => {
  it("one open at a time: opening another closes the first, clicking the open one closes it", async () => {
    const user = userEvent.setup();
    await renderList("single", "science");
    await user.click(trigger(/Wi-Fi/));
    expect(trigger(/Wi-Fi/)).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByText("Radio waves at 2.4 GHz")).toBeVisible();
    await user.click(trigger(/soap/));
    expect(trigger(/soap/)).toHaveAttribute("aria-expanded", "true");
    expect(trigger(/Wi-Fi/)).toHaveAttribute("aria-expanded", "false");
    expect(screen.getByText("Radio waves at 2.4 GHz")).not.toBeVisible();
    await user.click(trigger(/soap/));
    expect(trigger(/soap/)).toHaveAttribute("aria-expanded", "false");
  });

  it("multiple: each card opens on its own", async () => {
    const user = userEvent.setup();
    await renderList("multiple", "engines");
    await user.click(trigger(/Wi-Fi/));
    await user.click(trigger(/GPS/));
    expect(trigger(/Wi-Fi/)).toHaveAttribute("aria-expanded", "true");
    expect(trigger(/GPS/)).toHaveAttribute("aria-expanded", "true");
  });

  it("opens the card the URL's fragment names", async () => {
    window.location.hash = "#gps";
    await renderList("single", "science");
    expect(trigger(/GPS/)).toHaveAttribute("aria-expanded", "true");
    expect(document.getElementById("gps")).toHaveAttribute("data-open", "true");
  });

  it("the server's HTML is native <details> that share a name, with the link target inside", () => {
    const html = renderToString(<CardList cards={cards} type="single" group="science" />);
    const host = document.createElement("div");
    host.innerHTML = html;
    const details = host.querySelectorAll("details");
    expect(details).toHaveLength(3);
    expect([...details].map((element) => element.getAttribute("name"))).toEqual([
      "science",
      "science",
      "science",
    ]);
    expect(details[1]?.querySelector("summary")?.textContent).toContain("Micelles");
    expect(details[1]?.querySelector(".card-body #soap")).not.toBeNull();
    expect(host.querySelector("button")).toBeNull();
  });

  it("a card opened before hydration is open, with focus on its button, once hydrated", async () => {
    const host = document.createElement("div");
    host.innerHTML = renderToString(<CardList cards={cards} type="single" group="science" />);
    document.body.append(host);
    const soap = host.querySelector<HTMLDetailsElement>("details[data-card=soap]");
    if (!soap) throw new Error("no soap card");
    soap.open = true;
    soap.querySelector("summary")?.focus();

    await act(async () => {
      hydrateRoot(host, <CardList cards={cards} type="single" group="science" />);
    });
    await screen.findAllByRole("button");
    await act(() => new Promise((resolve) => requestAnimationFrame(resolve)));

    expect(host.querySelector("details")).toBeNull();
    expect(trigger(/soap/)).toHaveAttribute("aria-expanded", "true");
    expect(trigger(/Wi-Fi/)).toHaveAttribute("aria-expanded", "false");
    expect(trigger(/soap/)).toHaveFocus();
  });
});
