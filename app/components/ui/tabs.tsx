import { type KeyboardEvent, type ReactNode, useId, useState } from "react";

export type TabItem = { id: string; label: string; content: ReactNode };

/**
 * WAI-ARIA tabs with automatic activation. Every panel is rendered (inactive ones
 * hidden), so the prerendered HTML carries the text of all tabs.
 */
type TabsProps = {
  tabs: TabItem[];
  label: string;
  /** Controlled use: the active tab and its setter. */
  value?: string;
  onValueChange?: (id: string) => void;
};

export function Tabs({ tabs, label, value, onValueChange }: TabsProps) {
  const [ownActive, setOwnActive] = useState(tabs[0]?.id);
  const active = value ?? ownActive;
  const setActive = onValueChange ?? setOwnActive;
  const baseId = useId();
  const tabId = (id: string) => `${baseId}-tab-${id}`;
  const panelId = (id: string) => `${baseId}-panel-${id}`;

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const index = tabs.findIndex((tab) => tab.id === active);
    const next =
      event.key === "ArrowRight"
        ? (index + 1) % tabs.length
        : event.key === "ArrowLeft"
          ? (index - 1 + tabs.length) % tabs.length
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? tabs.length - 1
              : null;
    if (next === null) return;
    event.preventDefault();
    const tab = tabs[next];
    if (!tab) return;
    setActive(tab.id);
    document.getElementById(tabId(tab.id))?.focus();
  }

  return (
    <div>
      <div
        role="tablist"
        aria-label={label}
        onKeyDown={onKeyDown}
        className="flex flex-wrap gap-2 border-b border-line pb-3"
      >
        {tabs.map((tab) => {
          const selected = tab.id === active;
          return (
            <button
              key={tab.id}
              id={tabId(tab.id)}
              type="button"
              role="tab"
              aria-selected={selected}
              aria-controls={panelId(tab.id)}
              tabIndex={selected ? 0 : -1}
              onClick={() => setActive(tab.id)}
              className={`rounded-lg px-4 py-2 text-sm font-medium transition-colors ${
                selected
                  ? "bg-accent text-ink"
                  : "bg-panel text-slate-300 ring-1 ring-line hover:text-slate-100"
              }`}
            >
              {tab.label}
            </button>
          );
        })}
      </div>
      {tabs.map((tab) => (
        <div
          key={tab.id}
          id={panelId(tab.id)}
          role="tabpanel"
          aria-labelledby={tabId(tab.id)}
          hidden={tab.id !== active}
          className="pt-6"
        >
          {tab.content}
        </div>
      ))}
    </div>
  );
}
