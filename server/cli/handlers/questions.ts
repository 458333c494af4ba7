import type { StoredQuestion } from "../../../contract/assistant.ts";
import { plural } from "../../../contract/plural.ts";
import { questionActions } from "../../assistant/owner-actions.ts";
import { createQuestionsRepository } from "../../assistant/repository.ts";
import { type CommandContext, ownerAction, parseId, usageError } from "../command.ts";
import { printedJson } from "../table.ts";

/** The questions on the configured database, read and acted on as the console does. */
async function actionsOf({ store, config }: CommandContext) {
  return questionActions({
    repository: createQuestionsRepository(await store()),
    retentionDays: config.ASSISTANT_RETENTION_DAYS,
  });
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

function answeredBy(question: StoredQuestion): string {
  if (!question.known) return "not found";
  const from = question.page ?? (question.service ? `service ${question.service}` : "the site");
  return question.written ? `${from} (written)` : from;
}

const verdict = (question: StoredQuestion) =>
  question.helpful === null ? "" : question.helpful ? "helpful" : "not helpful";

export async function questionsList(context: CommandContext) {
  const { values, stdout } = context;
  const limitText = typeof values.limit === "string" ? values.limit : "50";
  const limit = Number(limitText);
  if (!/^\d{1,3}$/.test(limitText) || limit < 1 || limit > 500) {
    throw usageError(`--limit is a number from 1 to 500, not "${limitText}".`);
  }
  const overview = await (await actionsOf(context)).overview(
    values.unanswered ? { answered: false } : {},
  );
  const questions = overview.questions.slice(0, limit);
  if (printedJson({ values, stdout }, { ...overview, questions })) return;
  const { totals, unanswered, retentionDays } = overview;
  const heading = values.unanswered ? "Unanswered questions" : "Questions";
  stdout.write(
    [
      `Questions kept (the last ${retentionDays} days): ${totals.asked} asked, ${totals.answered} answered from the site; readers found ${plural(totals.helpful, "answer")} helpful and ${totals.unhelpful} not.\n`,
      unanswered.length === 0
        ? "Not answered yet: none.\n"
        : `Not answered yet, grouped by their words: ideas for the next article\n${unanswered
            .map(
              (group) =>
                `  ${`${group.count}×`.padStart(5)}  ${group.words}\n${group.examples
                  .map((example) => `         “${oneLine(example)}”\n`)
                  .join("")}`,
            )
            .join("")}`,
      questions.length === 0
        ? `${heading}: none.\n`
        : `${heading}, newest first\n${questions
            .map((question) => {
              const said = [
                question.askedAt.slice(0, 16).replace("T", " "),
                answeredBy(question),
                verdict(question),
              ].filter(Boolean);
              return `  ${String(question.id).padStart(6)}  ${said.join(" · ")}\n          ${oneLine(question.question)}\n`;
            })
            .join("")}`,
    ].join("\n"),
  );
}

export const questionsDelete = ownerAction(
  ({ positionals }) => parseId(positionals[0], "ID"),
  async (context, id) => (await actionsOf(context)).remove(context.actor, id),
  (id, _deleted, { json }) =>
    json ? `${JSON.stringify({ id, deleted: true })}\n` : `Deleted question ${id}.\n`,
  (id) => `There is no question ${id}; it may have been deleted.`,
);
