import { group } from "../command.ts";

const handlers = () => import("../handlers/questions.ts");

/**
 * `questions list|delete` (docs/product.md, "Chat with Me"): the console's
 * "Questions" screen on the command line, over the same reads and action.
 */
export const questionCommands = group(handlers, [
  {
    name: "questions list",
    usage: "[--unanswered] [--limit N] [--json]",
    summary: "what readers asked the site's assistant, with the unanswered ones grouped",
    help: `Prints what readers asked the site's assistant: how many questions are kept
and how many the site answered, the readers' thumbs up and down, the
unanswered questions grouped by their words (ideas for the next article,
the largest group first), then the questions themselves, newest first, with
whether each was answered and from which page (or by the model), and the
reader's verdict. No question says who asked it.

  --unanswered   list only the questions the site could not answer
  --limit N      how many questions to list (default 50, at most 500)
  --json         the console's whole answer as JSON, for scripts`,
  },
  {
    name: "questions delete",
    usage: "ID [--json]",
    summary: "delete one question (a reader typed something personal into it)",
    help: `Deletes one question asked of the assistant, as the console's Delete does,
and notes it in the audit trail. Exit code 3 when there is no such question.

  --json   print {"id":ID,"deleted":true} instead`,
  },
]);
