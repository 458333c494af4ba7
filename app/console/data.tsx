import { Fragment, type ReactNode, useId, useState } from "react";
import { buttonClass } from "./ui.tsx";

/*
 * How the console shows what it read: figures, lists and tables. Numbers are
 * written the British way.
 */
const number = new Intl.NumberFormat("en-GB");

/** A text's start, `most` characters at most, marked cut ("…") when it is. */
export const shortened = (text: string, most: number) =>
  text.length > most ? `${text.slice(0, most - 1)}…` : text;

/** Figures in large type, each under its label. */
export function Figures({ figures }: { figures: readonly (readonly [string, ReactNode])[] }) {
  return (
    <dl className="flex flex-wrap gap-8">
      {figures.map(([label, value]) => (
        <div key={label}>
          <dt className="text-sm text-slate-400">{label}</dt>
          <dd className="text-2xl font-semibold text-slate-100">
            {typeof value === "number" ? number.format(value) : value}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** What a list or a table says when it has nothing to show: it can take the focus (useBusy). */
export const Empty = ({ children }: { children: ReactNode }) => (
  <p tabIndex={-1} className="text-slate-400">
    {children}
  </p>
);

/** A list named `label`, each item an `<li>` of `children`, or `empty` when it has none. */
export function List<T>({
  items,
  label,
  empty,
  ordered = false,
  className = "space-y-3",
  children,
}: {
  items: readonly T[];
  label?: string;
  empty: ReactNode;
  ordered?: boolean;
  className?: string;
  children: (item: T, index: number) => ReactNode;
}) {
  if (items.length === 0) return <Empty>{empty}</Empty>;
  const Tag = ordered ? "ol" : "ul";
  return (
    <Tag aria-label={label} className={className}>
      {items.map(children)}
    </Tag>
  );
}

/**
 * A table of `rows`, each keyed by its first cell, which heads it, or `empty`
 * when given and there are none. Numbers are
 * written the British way and, with their column's heading, to the right. With
 * `first`, the first cell shows what it makes of the key (told the id of the
 * row under it); with `detail`, a row may open one across the table under it.
 * The first cell (an address, a path) may break anywhere; the others only
 * between words, so that on a phone a state or a button's word stays whole.
 * `stacked`, for a table too wide for a phone: below 640 px each row is a
 * block, its first cell on a line of its own and each other cell after its
 * column's heading (shown to the eye; a screen reader has the table's own).
 */
export function Table({
  caption,
  captionShown = false,
  head,
  rows,
  first = (key) => key,
  detail = () => null,
  className = "",
  empty,
  stacked = false,
}: {
  caption: ReactNode;
  captionShown?: boolean;
  head: readonly ReactNode[];
  rows: readonly (readonly [string, ...ReactNode[]])[];
  first?: (key: string, detailId: string) => ReactNode;
  detail?: (key: string) => ReactNode;
  className?: string;
  empty?: ReactNode;
  stacked?: boolean;
}) {
  const id = useId();
  if (rows.length === 0 && empty) return <Empty>{empty}</Empty>;
  const right = (index: number) => (typeof rows[0]?.[index] === "number" ? "text-right" : "");
  // Below 640 px: block rows, the headings out of sight but read, each cell labelled by its own.
  const stack = stacked
    ? {
        table: "max-sm:block",
        head: "max-sm:sr-only",
        body: "max-sm:block",
        row: "max-sm:flex max-sm:flex-wrap max-sm:gap-x-4 max-sm:py-1",
        first: "max-sm:basis-full",
        cell: "max-sm:py-0",
      }
    : null;
  return (
    <table className={`w-full text-left text-sm ${stack?.table ?? ""} ${className}`}>
      <caption className={captionShown ? "text-left text-xs text-slate-400" : "sr-only"}>
        {caption}
      </caption>
      <thead className={`text-slate-400 ${stack?.head ?? ""}`}>
        <tr>
          {head.map((heading, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the columns never move
            <th key={index} scope="col" className={`py-1 pr-4 font-medium ${right(index)}`}>
              {heading}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className={stack?.body}>
        {rows.map(([key, ...rest], row) => {
          const more = detail(key);
          return (
            <Fragment key={key}>
              <tr className={`border-t border-line align-top ${stack?.row ?? ""}`}>
                <th
                  scope="row"
                  className={`py-1 pr-4 font-normal wrap-anywhere text-slate-100 ${stack?.first ?? ""}`}
                >
                  {first(key, `${id}-${row}`)}
                </th>
                {rest.map((cell, index) => (
                  <td
                    // biome-ignore lint/suspicious/noArrayIndexKey: the columns never move
                    key={index}
                    className={`py-1 pr-4 break-words ${right(index + 1)} ${stack?.cell ?? ""}`}
                  >
                    {stack ? (
                      <span aria-hidden="true" className="text-slate-400 sm:hidden">
                        {head[index + 1]}{" "}
                      </span>
                    ) : null}
                    {typeof cell === "number" ? number.format(cell) : cell}
                  </td>
                ))}
              </tr>
              {more ? (
                <tr id={`${id}-${row}`} className={stack ? "max-sm:block" : ""}>
                  <td colSpan={head.length} className={stack ? "max-sm:block" : ""}>
                    {more}
                  </td>
                </tr>
              ) : null}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}

/**
 * Which page of a long list a screen shows (contract/list-pages.ts): the
 * `after` of each page before it, so that Previous goes back as Next came.
 * Another `scope` (the list searched another way) is another list, from its first page.
 */
export function usePages(scope = "") {
  const [kept, setKept] = useState<{ scope: string; trail: readonly string[] }>({
    scope,
    trail: [],
  });
  const trail = kept.scope === scope ? kept.trail : [];
  const change = (next: (trail: readonly string[]) => readonly string[]) =>
    setKept((now) => ({ scope, trail: next(now.scope === scope ? now.trail : []) }));
  return {
    after: trail.at(-1),
    number: trail.length + 1,
    // A second press before the page has come names the same place: one page on.
    next: (cursor: string) => change((now) => (now.at(-1) === cursor ? now : [...now, cursor])),
    previous: () => change((now) => now.slice(0, -1)),
  };
}

/**
 * "Previous page" and "Next page" under a long list, in a navigation named
 * `label`, with the page's number as a status. A button that leads nowhere
 * says so (`aria-disabled`) and keeps its place and the focus.
 */
export function Pager({
  label,
  pages,
  next,
}: {
  label: string;
  pages: ReturnType<typeof usePages>;
  next: string | null;
}) {
  if (pages.number === 1 && next === null) return null;
  const button = (text: string, go: (() => void) | null) => (
    <button
      type="button"
      className={`${buttonClass} aria-disabled:cursor-not-allowed aria-disabled:opacity-50`}
      aria-disabled={go === null}
      onClick={() => go?.()}
    >
      {text}
    </button>
  );
  return (
    <nav aria-label={label} className="mt-4 flex flex-wrap items-center gap-3">
      {button("Previous page", pages.number > 1 ? pages.previous : null)}
      <p role="status" className="text-sm text-slate-400">
        Page {pages.number}
      </p>
      {button("Next page", next === null ? null : () => pages.next(next))}
    </nav>
  );
}
