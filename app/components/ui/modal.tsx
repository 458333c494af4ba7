import { type KeyboardEvent, type ReactNode, useEffect, useRef } from "react";

const focusableSelector =
  'a[href], button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Tab and Shift+Tab cycle inside the dialog instead of leaving it. */
function keepFocusInside(event: KeyboardEvent<HTMLDialogElement>) {
  if (event.key !== "Tab") return;
  const focusable = [
    ...event.currentTarget.querySelectorAll<HTMLElement>(focusableSelector),
  ].filter((element) => element.getClientRects().length > 0);
  const first = focusable[0];
  const last = focusable.at(-1);
  if (!first || !last) return;
  const active = document.activeElement;
  if (event.shiftKey && (active === first || !event.currentTarget.contains(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && active === last) {
    event.preventDefault();
    first.focus();
  }
}

type ModalProps = {
  open: boolean;
  onClose: () => void;
  className?: string;
  children: ReactNode;
} & ({ "aria-label": string } | { "aria-labelledby": string });

/**
 * A modal on the native <dialog> element: the page behind it is inert, Esc closes
 * it, focus returns to where it was. We add the focus cycle and keep `open` in
 * React state. (No dialog library: it would cost more JavaScript than the whole
 * shell; see docs/decisions/002-first-load-budget.md.)
 */
export function Modal({ open, onClose, className = "", children, ...labelling }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      {...labelling}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClose={() => open && onClose()}
      onKeyDown={keepFocusInside}
      className={className}
    >
      {open ? children : null}
    </dialog>
  );
}
