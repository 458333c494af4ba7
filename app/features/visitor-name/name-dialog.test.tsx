import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { NameDialog } from "./name-dialog.tsx";
import { useDisplayName } from "./name-store.ts";

function Harness() {
  const [open, setOpen] = useState(true);
  const name = useDisplayName();
  return (
    <>
      <p data-testid="name">{name || "(none)"}</p>
      <button type="button" onClick={() => setOpen(true)}>
        Ask
      </button>
      <NameDialog open={open} onClose={() => setOpen(false)} />
    </>
  );
}

describe("NameDialog", () => {
  it("asks for a required name with the labels readers know", () => {
    render(<Harness />);
    const dialog = screen.getByRole("dialog", { name: "Enter your name" });
    expect(dialog).toBeVisible();
    expect(screen.getByPlaceholderText("Your name")).toBeRequired();
    for (const name of ["Cancel", "Continue", "Close"]) {
      expect(screen.getByRole("button", { name })).toBeInTheDocument();
    }
  });

  it("Continue stores the name untrimmed and remembers it in this browser", async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.type(screen.getByPlaceholderText("Your name"), " Asha ");
    await user.click(screen.getByRole("button", { name: "Continue" }));
    expect(screen.getByTestId("name").textContent).toBe(" Asha ");
    expect(localStorage.getItem("ewe:display-name")).toBe(" Asha ");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("Cancel and Close keep no name", async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.type(screen.getByPlaceholderText("Your name"), "Ravi");
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.getByTestId("name").textContent).toBe("(none)");
    await user.click(screen.getByRole("button", { name: "Ask" }));
    await user.type(screen.getByPlaceholderText("Your name"), "Ravi");
    await user.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.getByTestId("name").textContent).toBe("(none)");
    expect(localStorage.getItem("ewe:display-name")).toBeNull();
  });
});
