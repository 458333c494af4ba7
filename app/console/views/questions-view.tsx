import { useState } from "react";
import type { StoredQuestion } from "../../../contract/assistant.ts";
import { act, consoleApi, useConsoleData } from "../console-api.ts";
import { ConfirmButton, Loading, Panel, When } from "../ui.tsx";

type Filter = "all" | "yes" | "no";

function verdict(question: StoredQuestion): string {
  if (question.helpful === true) return "helpful";
  if (question.helpful === false) return "not helpful";
  return "no verdict";
}

/**
 * What readers asked the site's assistant (docs/product.md, "Chat with Me"),
 * newest first: whether the site answered and from which page, and the
 * readers' thumbs up or down; above them, the unanswered questions grouped by
 * their words, ideas for the next article. Nothing says who asked.
 */
export function QuestionsView() {
  const [filter, setFilter] = useState<Filter>("all");
  const { loaded, reload } = useConsoleData("GET /admin/questions", {
    query: filter === "all" ? {} : { answered: filter },
  });

  const remove = (id: number) =>
    act(
      () => consoleApi("DELETE /admin/questions/:id", { params: { id } }),
      "Question deleted",
      reload,
    );

  return (
    <Loading loaded={loaded}>
      {({ questions, unanswered, totals, retentionDays }) => (
        <div className="space-y-6">
          <p className="text-sm text-slate-300">
            {totals.asked} questions in the last {retentionDays} days (they are deleted after that),{" "}
            {totals.answered} answered from the site; readers found {totals.helpful} answers helpful
            and {totals.unhelpful} not. No question says who asked it.
          </p>
          <Panel title="Not answered yet: ideas for the next article">
            {unanswered.length === 0 ? (
              <p className="text-slate-400">Every question so far found its answer on the site.</p>
            ) : (
              <ul className="space-y-3" aria-label="Unanswered questions, grouped">
                {unanswered.map((group) => (
                  <li key={group.words} className="rounded-lg border border-line px-3 py-2">
                    <p className="font-semibold text-slate-100">
                      {group.words}{" "}
                      <span className="font-normal text-slate-400">
                        · asked {group.count} {group.count === 1 ? "time" : "times"}
                      </span>
                    </p>
                    <ul className="mt-1 list-disc pl-5 text-sm text-slate-300">
                      {group.examples.map((example) => (
                        <li key={example} className="break-words">
                          {example}
                        </li>
                      ))}
                    </ul>
                  </li>
                ))}
              </ul>
            )}
          </Panel>
          <fieldset className="flex flex-wrap gap-4 text-sm text-slate-200">
            <legend className="sr-only">Show</legend>
            {(
              [
                ["all", "All questions"],
                ["yes", "Answered"],
                ["no", "Not answered"],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className="flex items-center gap-2">
                <input
                  type="radio"
                  name="answered"
                  value={value}
                  checked={filter === value}
                  onChange={() => setFilter(value)}
                />
                {label}
              </label>
            ))}
          </fieldset>
          {questions.length === 0 ? (
            <p className="text-slate-400">No questions yet.</p>
          ) : (
            <ol
              className="divide-y divide-line rounded-xl border border-line bg-panel"
              aria-label="Questions, newest first"
            >
              {questions.map((question) => (
                <li key={question.id} className="flex flex-wrap items-start gap-3 px-4 py-3">
                  <div className="min-w-0 flex-1">
                    <p className="break-words text-slate-100">{question.question}</p>
                    <p className="mt-1 text-xs text-slate-400">
                      <When iso={question.askedAt} /> ·{" "}
                      {question.known ? (
                        <>
                          answered from{" "}
                          <a href={question.page ?? "/"} className="text-accent underline">
                            {question.page}
                          </a>
                          {question.written ? " (written by the model)" : ""}
                        </>
                      ) : (
                        "not found on the site"
                      )}{" "}
                      · {verdict(question)}
                    </p>
                  </div>
                  <ConfirmButton
                    label="Delete"
                    ariaLabel={`Delete the question “${question.question.slice(0, 60)}”`}
                    title="Delete this question?"
                    description="It is gone from the Questions screen and the database. This cannot be undone."
                    onConfirm={() => void remove(question.id)}
                  />
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </Loading>
  );
}
