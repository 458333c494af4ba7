import { type FormEvent, useId, useState } from "react";
import { limits } from "../../../contract/limits.ts";
import { Icon } from "../../components/ui/icon.tsx";
import { Modal } from "../../components/ui/modal.tsx";
import { getDisplayName, setDisplayName } from "./name-store.ts";

/**
 * "Enter your name" (SPEC §2): Continue stores the name, Cancel and the close
 * icon do not. Whatever the visitor clicked before is not applied afterwards.
 */
export function NameDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const titleId = useId();
  return (
    <Modal
      open={open}
      onClose={onClose}
      aria-labelledby={titleId}
      className="m-auto w-[min(92vw,26rem)] rounded-2xl border border-line bg-panel p-0 text-slate-200 shadow-2xl shadow-black/60 backdrop:bg-black/60 backdrop:backdrop-blur-sm"
    >
      <NameForm titleId={titleId} onDone={onClose} />
    </Modal>
  );
}

function NameForm({ titleId, onDone }: { titleId: string; onDone: () => void }) {
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
        <h2 id={titleId} className="text-xl font-semibold text-slate-100">
          Enter your name
        </h2>
        <button
          type="button"
          aria-label="Close"
          onClick={onDone}
          className="-mt-1 -mr-2 grid size-9 place-items-center rounded-lg text-slate-400 hover:bg-white/10"
        >
          <Icon name="x" />
        </button>
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
        <button
          type="button"
          onClick={onDone}
          className="rounded-lg px-4 py-2 text-sm font-medium ring-1 ring-line hover:bg-white/5"
        >
          Cancel
        </button>
        <button
          type="submit"
          className="rounded-lg bg-accent px-4 py-2 text-sm font-semibold text-ink"
        >
          Continue
        </button>
      </div>
    </form>
  );
}
