import { startRegistration } from "@simplewebauthn/browser";
import { type FormEvent, useState } from "react";
import type { OwnerSession, WhoAmIResponse } from "../../../contract/console.ts";
import { ConfirmButton } from "../confirm-button.tsx";
import { act, consoleApi, useBusy, useConsoleData } from "../console-api.ts";
import { List } from "../data.tsx";
import { useRefusal } from "../refusal.tsx";
import { ActButton, Input, Loading, Panel, primaryClass, When, whenText } from "../ui.tsx";

function AddPasskey({ onAdded }: { onAdded: () => Promise<void> }) {
  const [name, setName] = useState("");
  const [busy, busyWhile] = useBusy();
  const refusal = useRefusal(["name"]);
  function submit(event: FormEvent) {
    event.preventDefault();
    refusal.clear();
    void busyWhile(() =>
      act(
        async () => {
          const { options } = await consoleApi("POST /admin/passkeys/options");
          const response = await startRegistration({
            optionsJSON: options as unknown as Parameters<
              typeof startRegistration
            >[0]["optionsJSON"],
          });
          // WebAuthn's JSON, as the contract has it: the server's library checks it.
          const credential = response as unknown as Record<string, unknown>;
          await consoleApi("POST /admin/passkeys", { body: { name, response: credential } });
        },
        "Passkey added",
        () => {
          setName("");
          return onAdded();
        },
        refusal.refused,
      ),
    );
  }
  return (
    <form onSubmit={submit} className="mt-4 flex flex-wrap items-end gap-3">
      <Input
        label="Passkey name"
        className="min-w-0"
        required
        maxLength={60}
        aria-describedby="passkey-name-hint"
        value={name}
        onChange={setName}
        {...refusal.field("name")}
      />
      <button type="submit" disabled={busy} className={primaryClass}>
        Add a passkey
      </button>
      {refusal.problem}
      <p id="passkey-name-hint" className="w-full text-xs text-slate-400">
        A name to tell it from your other passkeys, such as the device or password manager that
        keeps it.
      </p>
    </form>
  );
}

/** A session: its browser and device, how and when it signed in, and when it was last active. */
function Session({ session: s }: { session: OwnerSession }) {
  return (
    <span className="min-w-0">
      <span className="font-medium text-slate-100">{s.device}</span>
      {s.current ? <span className="text-accent"> (this one)</span> : null}
      <span className="block text-slate-400">
        Signed in by {s.method === "passkey" ? "passkey" : "link"} <When iso={s.createdAt} />, last
        active <When iso={s.lastSeenAt} />
      </span>
    </span>
  );
}

export function SecurityView({ me }: { me: WhoAmIResponse }) {
  const passkeys = useConsoleData("GET /admin/session");
  const sessions = useConsoleData("GET /admin/sessions");
  const row = "flex items-center justify-between gap-3 text-sm";
  return (
    <div className="grid gap-5 xl:grid-cols-2">
      <Panel title="Passkeys">
        <p className="mb-3 text-sm text-slate-300">
          A passkey signs you in from this device without a mailed link.
        </p>
        <Loading loaded={passkeys.loaded}>
          {({ passkeys: list }) => (
            <List items={list} empty="No passkey yet." className="space-y-2">
              {(p) => (
                <li key={p.id} className={row}>
                  <span className="min-w-0 wrap-anywhere">
                    <span className="font-medium text-slate-100">{p.name}</span>
                    <span className="text-slate-400">
                      {" "}
                      added <When iso={p.createdAt} />
                    </span>
                  </span>
                  <ConfirmButton
                    label="Remove"
                    ariaLabel={`Remove the passkey ${p.name}`}
                    title={`Remove the passkey "${p.name}"?`}
                    description="It no longer signs you in, and the sessions it signed in end, this one too if it did."
                    call={["DELETE /admin/passkeys/:id", { params: { id: p.id } }]}
                    done="Passkey removed"
                    after={passkeys.reload}
                  />
                </li>
              )}
            </List>
          )}
        </Loading>
        {me.passkeysUnavailable ? (
          <p role="note" className="mt-4 text-sm text-amber-200">
            {me.passkeysUnavailable}
          </p>
        ) : (
          <AddPasskey onAdded={passkeys.reload} />
        )}
      </Panel>
      <Panel title="Sessions">
        <Loading loaded={sessions.loaded}>
          {({ sessions: list }) => (
            <>
              {list
                .filter((s) => s.current)
                .map((s) => (
                  <p key={s.id} className={row}>
                    <Session session={s} />
                  </p>
                ))}
              <List
                items={list.filter((s) => !s.current)}
                empty="No other session is signed in."
                className="mt-2 space-y-2"
              >
                {(s) => (
                  <li key={s.id} className={row}>
                    <Session session={s} />
                    <ActButton
                      label="End"
                      name={`End the session of ${s.device}, signed in ${whenText(s.createdAt)}`}
                      call={["DELETE /admin/sessions/:id", { params: { id: s.id } }]}
                      done="Session ended"
                      after={sessions.reload}
                    />
                  </li>
                )}
              </List>
            </>
          )}
        </Loading>
      </Panel>
    </div>
  );
}
