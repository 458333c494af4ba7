import { Dialog } from "radix-ui";
import { type FormEvent, useState } from "react";
import { limits } from "../../../contract/limits.ts";
import { Icon } from "../../components/ui/icon.tsx";
import { getDisplayName, setDisplayName } from "./name-store.ts";

/**
 * "Enter your name" (docs/product.md, "Reacting and commenting"): Continue
 * stores the name; Cancel, the close icon and Esc do not. Whatever the visitor
 * clicked before is not applied afterwards. The dialog has no trigger of its
 * own (a reaction, "Add a comment" or "Change name" opens it), so when it
 * closes, either way, focus goes to `returnFocusTo()`: without it, Radix would
 * leave focus on `<body>`, and the next Tab would start again at the top of the page.
 */
export function NameDialog({
  open,
  onClose,
  returnFocusTo,
}: {
  open: boolean;
  onClose: () => void;
  returnFocusTo?: () => HTMLElement | null;
}) {
  return (
    <Dialog.Root open={open} onOpenChange={(next) => !next && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 animate-fade-in bg-black/60 backdrop-blur-sm" />
        <Dialog.Content
          aria-describedby={undefined}
          onCloseAutoFocus={(event) => {
            const target = returnFocusTo?.();
            if (!target) return;
            event.preventDefault();
            target.focus();
          }}
          className="fixed top-1/2 left-1/2 z-50 w-[min(92vw,26rem)] -translate-x-1/2 -translate-y-1/2 animate-fade-in rounded-2xl border border-line bg-panel text-slate-200 shadow-2xl shadow-black/60"
        >
          <NameForm onDone={onClose} />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function NameForm({ onDone }: { onDone: () => void }) {
  const [name, setName] = useState(getDisplayName);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (name === "") return;
    setDisplayName(name);
    onDone();
  }
  return (
    <form onSubmit={submit} className="p-6">
      <div className="flex items-start justify-between gap-4">
        <Dialog.Title className="text-xl font-semibold text-slate-100">
          Enter your name
        </Dialog.Title>
        <Dialog.Close
          aria-label="Close"
          className="-mt-1 -mr-2 grid size-9 place-items-center rounded-lg text-slate-400 hover:bg-white/10"
        >
          <Icon name="x" />
        </Dialog.Close>
      </div>
      <p className="mt-2 text-sm text-slate-400">
        Your name is shown with your reactions and comments. It is remembered in this browser.
      </p>
      <input
        // biome-ignore lint/a11y/noAutofocus: the dialog exists to ask for this one field
        autoFocus
        required
        type="text"
        aria-label="Your name"
        placeholder="Your name"
        maxLength={limits.userNameMax}
        value={name}
        onChange={(event) => setName(event.target.value)}
        className="mt-5 w-full rounded-lg border border-line bg-ink px-3 py-2 text-slate-100 placeholder:text-slate-500"
      />
      <div className="mt-6 flex justify-end gap-3">
        <Dialog.Close className="rounded-lg px-4 py-2 text-sm font-medium ring-1 ring-line hover:bg-white/5">
          Cancel
        </Dialog.Close>
        <button type="submit" className="btn-primary">
          Continue
        </button>
      </div>
    </form>
  );
}
