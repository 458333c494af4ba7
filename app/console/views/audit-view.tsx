import type { AuditEntry } from "../../../contract/console.ts";
import { limits } from "../../../contract/limits.ts";
import { useConsoleData } from "../console-api.ts";
import { List } from "../data.tsx";
import { Loading, When } from "../ui.tsx";

/** Who did it: the console session's browser, or the command line and mailed links. */
function actor(entry: AuditEntry): string {
  return entry.device
    ? `in the console, ${entry.device}`
    : "from the command line or a mailed link";
}

/**
 * The audit trail, newest first: what was done in the console, on the pages
 * as the owner, and by the command line (the same rows `admin audit` prints).
 */
export function AuditView() {
  const { loaded } = useConsoleData("GET /admin/audit");
  return (
    <Loading loaded={loaded}>
      {({ entries }) => (
        <div className="space-y-3">
          {entries.length >= limits.auditShown ? (
            <p className="text-sm text-slate-400">
              The newest {entries.length} entries, newest first. The command line prints more:{" "}
              <code className="break-all">npm run admin -- audit --limit 1000</code>.
            </p>
          ) : entries.length > 0 ? (
            <p className="text-sm text-slate-400">Every entry, newest first.</p>
          ) : null}
          <List
            items={entries}
            ordered
            label="Audit trail, newest first"
            empty="Nothing has been done yet."
            className="divide-y divide-line rounded-xl border border-line bg-panel"
          >
            {(entry) => (
              <li key={entry.id} className="px-4 py-3">
                <p className="break-words text-slate-100">
                  <span className="font-semibold">{entry.action}</span>
                  {entry.object ? <span className="text-slate-300"> · {entry.object}</span> : null}
                </p>
                <p className="mt-1 text-xs text-slate-400">
                  <When iso={entry.at} /> · {actor(entry)}
                </p>
              </li>
            )}
          </List>
        </div>
      )}
    </Loading>
  );
}
