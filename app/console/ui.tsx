import { type InputHTMLAttributes, type ReactNode, useEffect, useId, useRef } from "react";
import { act, type Call, type Loaded, useBusy } from "./console-api.ts";

export const buttonClass =
  "rounded-lg px-3 py-1.5 text-sm font-medium ring-1 ring-line hover:bg-white/5 disabled:opacity-50";
export const primaryClass =
  "rounded-lg bg-accent px-3 py-1.5 text-sm font-semibold text-ink hover:bg-accent-strong disabled:opacity-50";
export const dangerClass =
  "rounded-lg px-3 py-1.5 text-sm font-medium text-red-300 ring-1 ring-red-500/40 hover:bg-red-500/10 disabled:opacity-50";
export const inputClass =
  "rounded-lg border border-line bg-ink px-3 py-1.5 text-slate-100 placeholder:text-slate-400";

/** A field's label, its text above the control. */
export const fieldClass = "flex flex-col gap-1 text-sm wrap-anywhere text-slate-300";

type FieldProps<V> = {
  label: string;
  value: V;
  onChange: (value: V) => void;
  /** The label's own classes, where the field's width is the form's to set. */
  className?: string;
};

/**
 * A form's or a filter's field, its label above it; with `rows`, a text of
 * that many lines. With a `problem` (refusal.tsx), it is marked invalid and
 * the problem, said under it, describes it.
 */
export function Input({
  label,
  value,
  onChange,
  className = "",
  problem,
  ...attributes
}: FieldProps<string> &
  Omit<InputHTMLAttributes<HTMLInputElement>, keyof FieldProps<string>> & {
    rows?: number;
    problem?: string | undefined;
  }) {
  const id = useId();
  const described = [problem && `${id}-problem`, attributes["aria-describedby"]];
  const control = {
    id,
    value,
    onChange: (event: { target: { value: string } }) => onChange(event.target.value),
    "aria-invalid": problem ? true : undefined,
    "aria-describedby": described.filter(Boolean).join(" ") || undefined,
    className: inputClass,
  };
  return (
    <div className={`flex flex-col gap-1 ${className}`}>
      <label htmlFor={id} className={fieldClass}>
        {label}
        {attributes.rows ? (
          <textarea {...(attributes as object)} {...control} />
        ) : (
          <input {...attributes} {...control} />
        )}
      </label>
      {problem ? (
        <span id={`${id}-problem`} className="text-sm wrap-anywhere text-red-300">
          {problem}
        </span>
      ) : null}
    </div>
  );
}

/** A choice among `options`, each a value and what it says, its label above it. */
export function Choice<V extends string>({
  label,
  value,
  onChange,
  className = "",
  options,
}: FieldProps<V> & { options: readonly (readonly [V, string])[] }) {
  return (
    <label className={`${fieldClass} ${className}`}>
      {label}
      <select
        value={value}
        onChange={(event) => onChange(event.target.value as V)}
        className={inputClass}
      >
        {options.map(([each, text]) => (
          <option key={each} value={each}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Panel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="rounded-2xl border border-line bg-panel p-5" aria-label={title}>
      <h2 className="mb-4 text-base font-semibold text-slate-100">{title}</h2>
      {children}
    </section>
  );
}

/** A card's facts, each label beside its value. */
export function Facts({ children }: { children: ReactNode }) {
  return (
    <dl className="mt-3 grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">{children}</dl>
  );
}

/**
 * One of a card's facts, left out when it has no value: plain text (`pre`:
 * as written, lines and all), or with `href` an address that links there.
 */
export function Fact({
  label,
  value,
  href,
  pre = false,
}: {
  label: string;
  value: ReactNode;
  href?: string;
  pre?: boolean;
}) {
  if (!value) return null;
  return (
    <>
      <dt className="text-slate-400">{label}</dt>
      {href === undefined ? (
        <dd className={`wrap-anywhere text-slate-200 ${pre ? "whitespace-pre-wrap" : ""}`}>
          {value}
        </dd>
      ) : (
        <dd className="break-all">
          <a href={href} className="text-accent underline">
            {value}
          </a>
        </dd>
      )}
    </>
  );
}

/** What a view shows while its data loads, or when it could not be read: why, and Try again. */
export function Loading<T>({
  loaded,
  children,
}: {
  loaded: Loaded<T>;
  children: (data: T) => ReactNode;
}) {
  // Try again's button goes once the data has come: the focus goes to the heading above it.
  const heading = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const landed = heading.current;
    if (loaded.state !== "ready" || !landed) return;
    heading.current = null;
    if (document.activeElement !== document.body) return;
    landed.tabIndex = -1;
    landed.addEventListener("blur", () => landed.removeAttribute("tabindex"), { once: true });
    landed.focus();
  }, [loaded.state]);
  if (loaded.state === "loading") return <p className="text-slate-400">Loading…</p>;
  if (loaded.state === "failed") {
    const retry = (event: { currentTarget: HTMLElement }) => {
      const around = event.currentTarget.closest("section[aria-label], main");
      heading.current = around?.querySelector<HTMLElement>("h1, h2") ?? null;
      loaded.retry();
    };
    return (
      <div className="flex flex-wrap items-center gap-3">
        <p role="alert" className="wrap-anywhere text-red-300">
          Could not load: {loaded.message}
        </p>
        <button type="button" className={buttonClass} onClick={retry}>
          Try again
        </button>
      </div>
    );
  }
  return <>{children(loaded.data)}</>;
}

/** A button (a toggle when `pressed` is given) that makes `call` at once, toasting `done` and running `after` (a reload) if it took, or what went wrong; the focus stays on the page (useBusy). */
export function ActButton({
  label,
  name,
  call,
  done,
  after,
  className = buttonClass,
  pressed,
}: {
  label: string;
  /** The button's name when its label alone is not unique on the page. */
  name?: string;
  call: Call;
  done: string;
  after?: () => unknown;
  className?: string;
  pressed?: boolean;
}) {
  const [, busyWhile] = useBusy();
  return (
    <button
      type="button"
      className={className}
      aria-label={name}
      aria-pressed={pressed}
      onClick={() => void busyWhile(() => act(call, done, after))}
    >
      {label}
    </button>
  );
}

/**
 * One choice of `options` (its value, its words, and a line under them), as
 * radio buttons; as `pills`, each a rounded box, the chosen one filled (a
 * filter). With `legendHidden`, the legend names the group for screen readers
 * only, where what the choices say is plain enough to the eye.
 */
export function Radios<V extends string>({
  legend,
  legendHidden = false,
  pills = false,
  value,
  onChange,
  options,
  className = pills ? "flex flex-wrap gap-2" : "flex flex-wrap gap-x-4 gap-y-2",
}: {
  legend: string;
  legendHidden?: boolean;
  pills?: boolean;
  value: V;
  onChange: (value: V) => void;
  options: readonly (readonly [V, string, string?])[];
  className?: string;
}) {
  const id = useId();
  return (
    <fieldset className="min-w-0">
      <legend className={legendHidden ? "sr-only" : "mb-1 text-sm font-medium text-slate-200"}>
        {legend}
      </legend>
      <div className={className}>
        {options.map(([each, label, hint]) => (
          <div key={each} className="text-sm">
            <label
              className={`flex items-center gap-2 text-slate-300 ${pills ? "cursor-pointer rounded-lg px-3 py-1.5 ring-1 ring-line has-checked:bg-accent/15 has-checked:text-accent" : ""}`}
            >
              <input
                type="radio"
                name={id}
                value={each}
                checked={value === each}
                onChange={() => onChange(each)}
                aria-describedby={hint ? `${id}-${each}` : undefined}
                className="size-4 shrink-0 accent-accent"
              />
              {label}
            </label>
            {hint ? (
              <p id={`${id}-${each}`} className="ml-6 text-slate-400">
                {hint}
              </p>
            ) : null}
          </div>
        ))}
      </div>
    </fieldset>
  );
}

/**
 * A moment as the owner reads it: in this browser's zone, the zone named
 * ("6 Dec 2026, 09:00 GMT+5:30"), as the newsletter's "Send at" field takes
 * it. The command line and the logs keep UTC. The zone is read at each call,
 * so a browser whose zone changes shows the new one.
 */
export const whenText = (iso: string) =>
  new Intl.DateTimeFormat("en-GB", {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  }).format(new Date(iso));

export function When({ iso }: { iso: string }) {
  return <time dateTime={iso}>{whenText(iso)}</time>;
}
