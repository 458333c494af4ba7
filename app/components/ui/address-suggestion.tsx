import { useState } from "react";
import { suggestedAddress } from "../../../contract/mail-domains.ts";

/**
 * "Did you mean name@gmail.com?" under an email field whose domain looks mistyped, said
 * politely once the reader leaves the field (`left`, its value then); its button puts that
 * address in the field (`accept`) and the focus back in it (`field`, its id). The address
 * typed is never refused.
 */
export function AddressSuggestion({
  field,
  left,
  accept,
  className,
}: {
  field: string;
  left: string;
  accept: (email: string) => void;
  className?: string;
}) {
  const suggested = suggestedAddress(left);
  return (
    <p id={`${field}-suggestion`} aria-live="polite" className={className}>
      {suggested ? (
        <>
          Did you mean{" "}
          <button
            type="button"
            className="underline"
            onClick={() => {
              accept(suggested);
              document.getElementById(field)?.focus();
            }}
          >
            {suggested}
          </button>
          ?
        </>
      ) : null}
    </p>
  );
}

/** The value of a field as it was when the reader left it, for `AddressSuggestion`. */
export function useLeftValue() {
  const [left, setLeft] = useState("");
  return {
    left,
    setLeft,
    onBlur: (event: { target: { value: string } }) => setLeft(event.target.value),
  };
}
