import { useId, useLayoutEffect, useState } from "react";
import { ApiError, fieldProblems } from "../lib/api-client.ts";
import { errorMessage, signInAgainHref } from "./console-api.ts";

type Refusal<F extends string> = {
  problems: Partial<Record<F, string>>;
  rest: string | null;
  /** The refusal asks for a recent sign-in: a link leads to it, and back here. */
  signInAgain?: boolean;
};

/**
 * What a console form shows of the server's refusals, in one place:
 * `refused(error)` (act's) marks each of its `fields` the refusal names
 * invalid, with its words (never the API's "body.x:" path) under it and
 * describing it, and moves the focus to the first; what names none of them
 * (a conflict, a lost connection) is said under the form, `problem`. Editing
 * a marked field clears its mark. `field(name)` goes on each Input (or
 * control marked as Input marks it). A refusal for want of a recent sign-in
 * (`sign_in_again`) carries a link to sign in again, which returns here.
 */
export function useRefusal<F extends string>(fields: readonly F[]) {
  const id = useId();
  const [shown, setShown] = useState<Refusal<F>>({ problems: {}, rest: null });
  const [times, setTimes] = useState(0);
  // At each refusal, once the marks are on the page (before useBusy gives the focus back).
  useLayoutEffect(() => {
    const marked = `[data-refusal="${id}"][aria-invalid="true"]`;
    if (times > 0) document.querySelector<HTMLElement>(marked)?.focus();
  }, [times, id]);
  const show = (refusal: Refusal<F>) => {
    setShown(refusal);
    setTimes((n) => n + 1);
  };
  const refused = (error: unknown) => {
    const named = error instanceof ApiError && error.code !== "network_error";
    show(
      named
        ? { ...fieldProblems(error, fields), signInAgain: error.code === "sign_in_again" }
        : { problems: {}, rest: errorMessage(error) },
    );
  };
  return {
    refused,
    /** Marks a field the form's own check refused, as a refusal of the server would. */
    mark: (name: F, problem: string) =>
      show({ problems: { [name]: problem } as Refusal<F>["problems"], rest: null }),
    clear: () => setShown({ problems: {}, rest: null }),
    field: (name: F) => ({
      "data-refusal": id,
      problem: shown.problems[name],
      onInput: () =>
        setShown((before) => ({ ...before, problems: { ...before.problems, [name]: undefined } })),
    }),
    problem: shown.rest ? (
      <p role="alert" className="w-full text-sm wrap-anywhere text-red-300">
        {shown.rest}
        {shown.signInAgain ? (
          <>
            {" "}
            <a href={signInAgainHref()} className="font-medium text-accent underline">
              Sign in again
            </a>
          </>
        ) : null}
      </p>
    ) : null,
  };
}
