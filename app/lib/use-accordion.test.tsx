import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { createRoutesStub } from "react-router";
import { describe, expect, it } from "vitest";
import { CollapsibleCard } from "../components/ui/collapsible-card.tsx";
import { useAccordion } from "./use-accordion.ts";

const ids = ["wifi", "soap", "pressure-cooker"];

function Accordion() {
  const accordion = useAccordion(ids);
  return ids.map((id) => (
    <CollapsibleCard
      key={id}
      id={id}
      title={`About ${id}`}
      open={accordion.isOpen(id)}
      onToggle={() => accordion.toggle(id)}
    >
      <p>Answer on {id}</p>
    </CollapsibleCard>
  ));
}

function renderAt(path: string) {
  const Stub = createRoutesStub([{ path: "/science", Component: Accordion }]);
  return render(<Stub initialEntries={[path]} />);
}

const button = (id: string) => screen.getByRole("button", { name: `About ${id}` });

describe("one-at-a-time accordion", () => {
  it("starts closed with every answer in the page", async () => {
    renderAt("/science");
    for (const id of ids) {
      expect(await screen.findByText(`Answer on ${id}`)).not.toBeVisible();
      expect(button(id)).toHaveAttribute("aria-expanded", "false");
    }
  });

  it("opening one closes the other; clicking the open one closes it", async () => {
    const user = userEvent.setup();
    renderAt("/science");
    await user.click(await screen.findByRole("button", { name: "About wifi" }));
    expect(screen.getByText("Answer on wifi")).toBeVisible();
    await user.click(button("soap"));
    expect(screen.getByText("Answer on soap")).toBeVisible();
    expect(screen.getByText("Answer on wifi")).not.toBeVisible();
    expect(button("wifi")).toHaveAttribute("aria-expanded", "false");
    await user.click(button("soap"));
    expect(screen.getByText("Answer on soap")).not.toBeVisible();
  });

  it("opens the item named by the URL hash", async () => {
    renderAt("/science#pressure-cooker");
    expect(await screen.findByText("Answer on pressure-cooker")).toBeVisible();
    expect(button("pressure-cooker")).toHaveAttribute("aria-expanded", "true");
  });
});
