import { Tabs as RadixTabs } from "radix-ui";
import type { ReactNode } from "react";

export type TabItem = { id: string; label: string; content: ReactNode };

type TabsProps = {
  tabs: TabItem[];
  label: string;
  value: string;
  onValueChange: (id: string) => void;
};

/**
 * Radix tabs with every panel in the HTML. Inactive panels are `hidden`; the
 * stylesheet shows them all, each under its own heading, when JavaScript is off
 * (app.css, "without JavaScript"), so no panel is out of reach.
 */
export function Tabs({ tabs, label, value, onValueChange }: TabsProps) {
  return (
    <RadixTabs.Root value={value} onValueChange={onValueChange}>
      <RadixTabs.List aria-label={label} className="flex flex-wrap gap-2 border-b border-line pb-3">
        {tabs.map((tab) => (
          <RadixTabs.Trigger key={tab.id} value={tab.id} className="tab">
            {tab.label}
          </RadixTabs.Trigger>
        ))}
      </RadixTabs.List>
      {tabs.map((tab) => (
        <RadixTabs.Content
          key={tab.id}
          value={tab.id}
          forceMount
          hidden={tab.id !== value}
          className="pt-6"
        >
          <h2 className="no-js-only mb-4 text-2xl font-semibold text-accent">{tab.label}</h2>
          {tab.content}
        </RadixTabs.Content>
      ))}
    </RadixTabs.Root>
  );
}
