import { group } from "../command.ts";

const handlers = () => import("../handlers/stats.ts");

export const statsCommands = group(handlers, [
  {
    name: "stats",
    usage: "[--json]",
    summary: "subscribers, and reactions and comments per item",
    help: `Prints the number of subscribers, then every story and science post that has
reactions or comments, with its counts per reaction type and its comments.

  --json   the same as JSON, for scripts`,
  },
]);
