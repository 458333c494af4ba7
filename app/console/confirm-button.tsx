import { AlertDialog, Dialog } from "radix-ui";
import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from "react";
import { act, type Call, useBusy } from "./console-api.ts";
import type { useRefusal } from "./refusal.tsx";
import { buttonClass, dangerClass, primaryClass } from "./ui.tsx";

/** The confirmation of what cannot be undone: solid red, never the accent's green. */
const destructiveClass =
  "rounded-lg bg-red-700 px-3 py-1.5 text-sm font-semibold text-white hover:bg-red-600 disabled:opacity-50";

/** Centred, within a phone's width and height (scrolling inside when taller), never sideways. */
const boxClass =
  "fixed top-1/2 left-1/2 z-50 max-h-[calc(100dvh-2rem)] w-[min(92vw,28rem)] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-2xl border border-line bg-panel p-6 wrap-anywhere text-slate-200 shadow-2xl";
const overlayClass = "fixed inset-0 z-50 bg-black/60";
const titleClass = "text-lg font-semibold text-slate-100";
const descriptionClass = "mt-2 text-sm text-slate-300";
const buttonsClass = "mt-6 flex flex-wrap justify-end gap-3";

/**
 * A button that opens a dialog before it acts: for what cannot be undone, or
 * what needs its fields filled (`children`). Without fields it is an alert
 * dialog, a confirmation, its focus on the button that leaves things as they
 * are; with them it is a plain dialog holding a form, its first field focused
 * (the chosen radio button of a group), and its confirming button submits it
 * (docs/decisions/094-a-form-is-a-dialog.md). Both keep the focus within them,
 * close on Escape and give the focus back to the button. A "destructive" one
 * (removing, banning) is red, and so is its confirmation; a "primary" one
 * (sending) is the accent. A `call` keeps the focus on the page (useBusy).
 * A form left with nothing to send (`unavailable`) says why and offers only the way out.
 */
export function ConfirmButton({
  label,
  ariaLabel,
  title,
  description,
  confirmLabel = label,
  dismissLabel = "Cancel",
  onConfirm,
  call,
  done = "",
  after,
  tone = "destructive",
  disabled = false,
  refusal,
  unavailable,
  children,
}: {
  label: string;
  /** The trigger's name when its label alone is not unique on the page. */
  ariaLabel?: string;
  title: string;
  description: string;
  /** The confirming button's words, when they are not the trigger's. */
  confirmLabel?: string;
  /** The button that leaves things as they are, where "Cancel" would read as the action. */
  dismissLabel?: string;
  /** What confirming does: `onConfirm`, or `call` toasting `done` and then running `after` (a reload) if it took, or what went wrong. */
  onConfirm?: () => void;
  call?: Call;
  done?: string;
  after?: () => unknown;
  tone?: "destructive" | "primary";
  disabled?: boolean;
  /** The form's fields, under the description: the dialog is a plain dialog, not an alert. */
  children?: ReactNode;
  /** Where a `call` refused is said (useRefusal, its fields among the children): the dialog stays open. */
  refusal?: Pick<ReturnType<typeof useRefusal>, "refused" | "clear">;
  /**
   * Why the form has nothing to send (Move with no free time): said in place of its confirming
   * button, which it leaves out; the way out, the one button left, takes the focus and is
   * described by it.
   */
  unavailable?: string | undefined;
}) {
  const [busy, busyWhile] = useBusy();
  const [open, setOpen] = useState(false);
  const why = useId();
  const wayOut = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const button = wayOut.current;
    if (!open || !unavailable || !button) return;
    button.focus();
    // Fields that come after all (a read newer than the one remembered) take it back, unless moved.
    return () => {
      const box = button.closest<HTMLElement>('[role="dialog"]');
      if (box && document.activeElement === button) firstField(box);
    };
  }, [open, unavailable]);
  /** Runs the action; whether the dialog is to stay open until the call has taken. */
  const confirm = () => {
    if (!call) return void onConfirm?.();
    if (!refusal) return void busyWhile(() => act(call, done, after));
    refusal.clear();
    const closed = () => {
      setOpen(false);
      return after?.();
    };
    void busyWhile(() => act(call, done, closed, refusal.refused));
    return true;
  };
  const triggerClass = tone === "primary" ? primaryClass : dangerClass;
  const confirmClass = tone === "primary" ? primaryClass : destructiveClass;
  if (children) {
    // Sent once: a second press while the first runs (a double click) does nothing.
    const submit = (event: FormEvent) => {
      event.preventDefault();
      if (!busy && !unavailable && !confirm()) setOpen(false);
    };
    return (
      <Dialog.Root open={open} onOpenChange={setOpen}>
        <Dialog.Trigger className={triggerClass} aria-label={ariaLabel} disabled={disabled}>
          {label}
        </Dialog.Trigger>
        <Dialog.Portal>
          <Dialog.Overlay className={overlayClass} />
          <Dialog.Content
            className={boxClass}
            ref={focusFirstField}
            // A stray click beside the box drops nothing typed: Escape or the button closes it.
            onInteractOutside={(event) => event.preventDefault()}
            onOpenAutoFocus={(event) => {
              event.preventDefault();
              if (event.currentTarget instanceof HTMLElement) firstField(event.currentTarget);
            }}
          >
            <form onSubmit={submit}>
              <Dialog.Title className={titleClass}>{title}</Dialog.Title>
              <Dialog.Description className={descriptionClass}>{description}</Dialog.Description>
              {children}
              {unavailable ? (
                <p id={why} className="mt-4 text-sm text-slate-300">
                  {unavailable}
                </p>
              ) : null}
              <div className={buttonsClass}>
                <Dialog.Close
                  ref={wayOut}
                  type="button"
                  className={buttonClass}
                  aria-describedby={unavailable ? why : undefined}
                >
                  {dismissLabel}
                </Dialog.Close>
                {unavailable ? null : (
                  <button type="submit" className={confirmClass} aria-disabled={busy || undefined}>
                    {confirmLabel}
                  </button>
                )}
              </div>
            </form>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    );
  }
  return (
    <AlertDialog.Root open={open} onOpenChange={setOpen}>
      <AlertDialog.Trigger className={triggerClass} aria-label={ariaLabel} disabled={disabled}>
        {label}
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className={overlayClass} />
        <AlertDialog.Content className={boxClass}>
          <AlertDialog.Title className={titleClass}>{title}</AlertDialog.Title>
          <AlertDialog.Description className={descriptionClass}>
            {description}
          </AlertDialog.Description>
          <div className={buttonsClass}>
            <AlertDialog.Cancel className={buttonClass}>{dismissLabel}</AlertDialog.Cancel>
            <AlertDialog.Action
              className={confirmClass}
              onClick={(event) => confirm() && event.preventDefault()}
            >
              {confirmLabel}
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}

/** Focuses the first field in `box` (a group's chosen radio button, if one is), or else `box` itself; whether it found one. */
function firstField(box: HTMLElement) {
  const field = box.querySelector<HTMLElement>(
    "input:not(:disabled), select:not(:disabled), textarea:not(:disabled)",
  );
  const chosen =
    field instanceof HTMLInputElement && field.type === "radio"
      ? box.querySelector<HTMLElement>(`input[name="${CSS.escape(field.name)}"]:checked`)
      : null;
  (chosen ?? field ?? box).focus();
  return field !== null;
}

/**
 * While the dialog itself holds the focus (its fields still loading), the
 * first field to come takes it; once the focus is elsewhere, it stays there.
 */
function focusFirstField(box: HTMLDivElement | null) {
  if (!box) return;
  const watch = new MutationObserver(() => {
    if (document.activeElement === box && firstField(box)) watch.disconnect();
  });
  watch.observe(box, { childList: true, subtree: true });
  return () => watch.disconnect();
}
