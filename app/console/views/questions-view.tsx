import { useState } from "react";
import type { StoredQuestion } from "../../../contract/assistant.ts";
import { plural } from "../../../contract/plural.ts";
import { ConfirmButton } from "../confirm-button.tsx";
import { useConsoleData } from "../console-api.ts";
import { List, shortened } from "../data.tsx";
import { Loading, Panel, Radios, When } from "../ui.tsx";

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
  return (
    <Loading loaded={loaded}>
      {({ questions, unanswered, totals, retentionDays }) => (
        <div className="space-y-6">
          <p className="text-sm text-slate-300">
            {plural(totals.asked, "question")} in the last {retentionDays} days (they are deleted
            after that), {totals.answered} answered from the site; readers found{" "}
            {plural(totals.helpful, "answer")} helpful and {totals.unhelpful} not. No question says
            who asked it.
          </p>
          <Panel title="Not answered yet: ideas for the next article">
            <List
              items={unanswered}
              label="Unanswered questions, grouped"
              empty="Every question so far found its answer on the site."
            >
              {(group) => (
                <li key={group.words} className="rounded-lg border border-line px-3 py-2">
                  <p className="font-semibold wrap-anywhere text-slate-100">
                    {group.words}{" "}
                    <span className="font-normal text-slate-400">
                      · asked {plural(group.count, "time")}
                    </span>
                  </p>
                  <ul className="mt-1 list-disc pl-5 text-sm break-words text-slate-300">
                    {group.examples.map((example) => (
                      <li key={example}>{example}</li>
                    ))}
                  </ul>
                </li>
              )}
            </List>
          </Panel>
          <Radios
            legend="Show"
            legendHidden
            value={filter}
            onChange={setFilter}
            options={[
              ["all", "All questions"],
              ["yes", "Answered"],
              ["no", "Not answered"],
            ]}
          />
          <List
            items={questions}
            ordered
            label="Questions, newest first"
            empty={
              filter === "all" || totals.asked === 0
                ? "No questions yet."
                : filter === "yes"
                  ? `No question in the last ${retentionDays} days was answered from the site.`
                  : `Every question in the last ${retentionDays} days was answered from the site.`
            }
            className="divide-y divide-line rounded-xl border border-line bg-panel"
          >
            {(question) => (
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
                  ariaLabel={`Delete the question “${shortened(question.question, 60)}”`}
                  title="Delete this question?"
                  description="It is gone from the Questions screen and the database. This cannot be undone."
                  call={["DELETE /admin/questions/:id", { params: { id: question.id } }]}
                  done="Question deleted"
                  after={reload}
                />
              </li>
            )}
          </List>
        </div>
      )}
    </Loading>
  );
}
