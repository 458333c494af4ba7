import { describe, expect, it } from "vitest";
import { isSearchShortcut } from "./search-launcher.tsx";

function keydown(key: string, target: EventTarget, init: KeyboardEventInit = {}) {
  const event = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...init });
  Object.defineProperty(event, "target", { value: target });
  return event;
}

describe("the search shortcuts", () => {
  const body = document.body;

  it("are / and Ctrl+K or Cmd+K", () => {
    expect(isSearchShortcut(keydown("/", body))).toBe(true);
    expect(isSearchShortcut(keydown("k", body, { ctrlKey: true }))).toBe(true);
    expect(isSearchShortcut(keydown("K", body, { metaKey: true }))).toBe(true);
    expect(isSearchShortcut(keydown("k", body))).toBe(false);
    expect(isSearchShortcut(keydown("k", body, { ctrlKey: true, shiftKey: true }))).toBe(false);
    expect(isSearchShortcut(keydown("/", body, { ctrlKey: true }))).toBe(false);
  });

  it("are left to text fields, but not to buttons or checkboxes", () => {
    const field = document.createElement("input");
    const area = document.createElement("textarea");
    const editable = document.createElement("div");
    editable.contentEditable = "true";
    const checkbox = Object.assign(document.createElement("input"), { type: "checkbox" });
    const button = document.createElement("button");
    for (const target of [field, area, editable]) {
      expect(isSearchShortcut(keydown("/", target))).toBe(false);
      expect(isSearchShortcut(keydown("k", target, { ctrlKey: true }))).toBe(false);
    }
    expect(isSearchShortcut(keydown("/", checkbox))).toBe(true);
    expect(isSearchShortcut(keydown("/", button))).toBe(true);
  });
});
