import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { Tabs as ControlledTabs, type TabItem } from "./tabs.tsx";

function Tabs({ tabs, label }: { tabs: TabItem[]; label: string }) {
  const [value, setValue] = useState(tabs[0]?.id ?? "");
  return <ControlledTabs tabs={tabs} label={label} value={value} onValueChange={setValue} />;
}

const tabs = [
  { id: "introduction", label: "Introduction", content: <p>Why engines still matter</p> },
  { id: "engines", label: "Engines", content: <p>Common-rail injection</p> },
  { id: "fuel-cells", label: "Fuel Cells", content: <p>PEM stacks</p> },
];

describe("Tabs", () => {
  it("opens on the first tab and keeps the others in the page, hidden", () => {
    render(<Tabs label="Topics" tabs={tabs} />);
    expect(screen.getByRole("tab", { name: "Introduction" })).toHaveAttribute(
      "aria-selected",
      "true",
    );
    expect(screen.getByText("Why engines still matter")).toBeVisible();
    expect(screen.getByText("Common-rail injection")).not.toBeVisible();
    expect(screen.getByText("PEM stacks")).toBeInTheDocument();
  });

  it("switches on click and with the arrow keys", async () => {
    const user = userEvent.setup();
    render(<Tabs label="Topics" tabs={tabs} />);
    await user.click(screen.getByRole("tab", { name: "Engines" }));
    expect(screen.getByRole("tab", { name: "Engines" })).toHaveAttribute("aria-selected", "true");
    expect(screen.getByText("Common-rail injection")).toBeVisible();
    expect(screen.getByText("Why engines still matter")).not.toBeVisible();

    await user.keyboard("{ArrowRight}");
    expect(screen.getByRole("tab", { name: "Fuel Cells" })).toHaveFocus();
    expect(screen.getByText("PEM stacks")).toBeVisible();
    await user.keyboard("{ArrowRight}");
    expect(screen.getByRole("tab", { name: "Introduction" })).toHaveAttribute(
      "aria-selected",
      "true",
    );
    await user.keyboard("{End}");
    expect(screen.getByRole("tab", { name: "Fuel Cells" })).toHaveAttribute(
      "aria-selected",
      "true",
    );
  });
});
