import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import type { AuthenticatorTransport, verifyAuthenticationResponse } from "@simplewebauthn/server";
import type { FastifyReply, FastifyRequest } from "fastify";
import {
  mailLinkRequestSchema,
  mailLinkResponseSchema,
  passkeyOptionsResponseSchema,
  passkeySignInRequestSchema,
  signInMethodsResponseSchema,
  signInRequestSchema,
  signInResponseSchema,
} from "../../../contract/console.ts";
import { signInLinkLife } from "../../../contract/limits.ts";
import { ApiError } from "../../api/errors.ts";
import { networkFactor } from "../../lib/address-limit.ts";
import { addressScope, networkOf } from "../../lib/address-scope.ts";
import { deviceLabel } from "../device-label.ts";
import { ownerSessionOf } from "../owner-session.ts";
import { passkeyProblem } from "../passkey-host.ts";
import { signInLinkMail } from "../sign-in-mail.ts";
import { unverifiedPasskey, webauthn } from "../webauthn.ts";
import { type Answers, type ConsoleContext, refuseIpHost, route, signedOut } from "./context.ts";

/**
 * Failed sign-in attempts per key (an address, a network) over a window, in this
 * instance's memory. Only failures count: a genuine link or passkey is never refused,
 * so strangers behind the owner's shared address (or an attacker among them)
 * cannot lock the owner out; they only lose their own guesses.
 */
function failureCounter(windowMs: number) {
  const failures = new Map<string, number[]>();
  const recent = (key: string, now: number) => {
    const times = (failures.get(key) ?? []).filter((time) => time > now - windowMs);
    if (times.length > 0) failures.set(key, times);
    else failures.delete(key);
    return times;
  };
  return {
    /** Seconds until `key` may fail again, having failed `max` times, or 0 when it may now. */
    blockedFor(key: string, max: number): number {
      const now = Date.now();
      const times = recent(key, now);
      return times.length < max
        ? 0
        : Math.max(1, Math.ceil(((times[0] ?? now) + windowMs - now) / 1000));
    },
    failed(key: string) {
      const now = Date.now();
      failures.set(key, [...recent(key, now), now]);
      // Addresses that stopped trying are forgotten as the map is walked.
      if (failures.size > 10_000) for (const other of failures.keys()) recent(other, now);
    },
  };
}

/** Why a sign-in link's token signs nobody in. */
const linkRefusals = {
  unknown: () => new ApiError(404, "unknown_token", "This sign-in link is not known."),
  expired: () =>
    new ApiError(
      410,
      "token_expired",
      `This sign-in link has expired; links work for ${signInLinkLife}. Ask for a new one.`,
    ),
  used: () =>
    new ApiError(410, "token_used", "This sign-in link has already been used; ask for a new one."),
};

/** Signing in: by a one-time link's token, a mailed link, or a passkey. No session needed. */
export const signInRoutes: FastifyPluginAsyncZod<ConsoleContext> = async (app, context) => {
  const { config, owner, mailer, rpID, expectedOrigin, setSessionCookie, challenges, cookieName } =
    context;
  const { siteUrl } = config;

  let linkMailing: Promise<void> = Promise.resolve();
  const failures = failureCounter(60 * 60 * 1000);
  const max = config.OWNER_SIGN_IN_ATTEMPTS_PER_HOUR;

  /**
   * A failed attempt: counted, or refused with 429 once the address or its
   * network has failed too often (and then not counted further).
   */
  function failed(request: FastifyRequest, refusal: ApiError): ApiError {
    // And per network, ten times as many: its 65,536 /64s would each have the address's allowance.
    const counts = [
      [`address ${addressScope(request.ip)}`, max, "this address"],
      [`network ${networkOf(request.ip)}`, max * networkFactor, "your network"],
    ] as const;
    for (const [key, most, from] of counts) {
      const wait = failures.blockedFor(key, most);
      if (wait > 0) {
        return new ApiError(
          429,
          "rate_limited",
          `Too many failed sign-in attempts from ${from}; try again later.`,
          wait,
        );
      }
    }
    for (const [key] of counts) failures.failed(key);
    return refusal;
  }

  /** Opens the session: its cookie, its line in the audit trail, and the answer. */
  async function signedIn(
    request: FastifyRequest,
    reply: FastifyReply,
    { sessionId, token }: { sessionId: string; token: string },
    method: "link" | "passkey",
  ) {
    // The browser's earlier session ends: a copy of its cookie (never fresh, decision 062)
    // would otherwise stand until it idled out.
    const earlier = await ownerSessionOf(request, owner, cookieName);
    if (earlier && earlier.id !== sessionId) await owner.revoke({ id: earlier.id });
    setSessionCookie(reply, token);
    await owner.audit(sessionId, "sign-in", method);
    const session = (await owner.listSessions(sessionId)).find((s) => s.current);
    if (!session) throw signedOut();
    return { session };
  }

  /** A route reached without a session, listed apart. */
  const signInRoute = <const A extends Answers, const P extends object>(
    summary: string,
    answers: A,
    parts?: P,
  ) => ({
    config: { ownerSignIn: true },
    ...route(summary, answers, { tags: ["console sign-in"], ...(parts as P) }),
  });
  app.post(
    "/sign-in",
    signInRoute(
      `Sign in with the token of a one-time link (${signInLinkLife}, once)`,
      signInResponseSchema,
      { body: signInRequestSchema },
    ),
    async (request, reply) => {
      // The link is tried first: a genuine one works whatever others sent from here.
      const outcome = await owner.signInWithLink(
        request.body.token,
        deviceLabel(request.headers["user-agent"]),
      );
      if (typeof outcome === "string") throw failed(request, linkRefusals[outcome]());
      return signedIn(request, reply, outcome, "link");
    },
  );

  app.post(
    "/sign-in/mail",
    signInRoute(
      "Mail a one-time sign-in link to OWNER_EMAIL, if this is that address",
      { 202: mailLinkResponseSchema },
      {
        description:
          "The answer is the same whether or not the address is the owner's, and whether or not a mail was sent.",
        body: mailLinkRequestSchema,
      },
    ),
    async (request, reply) => {
      const ownerEmail = config.OWNER_EMAIL;
      if (ownerEmail && request.body.email.toLowerCase() === ownerEmail.toLowerCase()) {
        // Sent after the answer, so its time tells nothing either. One link at
        // a time: while a mailed one is valid, it is the one to use, so
        // however many ask, the owner gets at most one mail per link's life.
        // Requests are taken one after another, so two at once mail one link.
        const previous = linkMailing;
        linkMailing = (async () => {
          await previous;
          const token = await owner.createMailedLink();
          if (token === null) return;
          // Sent at once, not through the outbox (docs/console.md, "Signing in"): a link
          // the SMTP server did not take is withdrawn, so asking again mails a new one.
          await mailer
            .send(signInLinkMail({ to: ownerEmail, token, siteUrl }))
            .catch(async (error: unknown) => {
              await owner.withdrawMailedLink(token);
              throw error;
            });
          await owner.audit(null, "sign-in link", "mailed to OWNER_EMAIL");
        })().catch((error) =>
          request.log.error({ err: error }, "sign-in link could not be mailed"),
        );
      }
      return reply.code(202).send({ requested: true as const });
    },
  );

  app.get(
    "/sign-in/methods",
    signInRoute(
      "What the sign-in page offers: a passkey only when one can sign in here, a mailed link only with OWNER_EMAIL",
      signInMethodsResponseSchema,
    ),
    async () => {
      const mailedLink = Boolean(config.OWNER_EMAIL);
      const problem = passkeyProblem(siteUrl);
      if (problem) return { passkey: "unavailable" as const, passkeyProblem: problem, mailedLink };
      const registered = (await owner.listPasskeys()).length > 0;
      const passkey = registered ? ("ready" as const) : ("none" as const);
      return { passkey, passkeyProblem: null, mailedLink };
    },
  );

  app.post(
    "/passkey-sign-in/options",
    signInRoute(
      "WebAuthn options to sign in with a registered passkey",
      passkeyOptionsResponseSchema,
    ),
    async () => {
      // Asking is no attempt and stores nothing (../sign-in-challenge.ts):
      // only the API's limit on writes per address bounds it.
      refuseIpHost(siteUrl);
      const passkeys = await owner.storedPasskeys();
      const options = await (await webauthn()).generateAuthenticationOptions({
        rpID,
        challenge: challenges.issue(),
        userVerification: "required",
        allowCredentials: passkeys.map((p) => ({
          id: p.id,
          transports: p.transports as AuthenticatorTransport[],
        })),
      });
      return { options: options as unknown as Record<string, unknown> };
    },
  );

  app.post(
    "/passkey-sign-in",
    signInRoute("Sign in with a passkey's answer to the options' challenge", signInResponseSchema, {
      body: passkeySignInRequestSchema,
    }),
    async (request, reply) => {
      const refused = () =>
        failed(request, new ApiError(401, "unauthorized", "This passkey could not sign you in."));
      const response = request.body.response as unknown as Parameters<
        typeof verifyAuthenticationResponse
      >[0]["response"];
      const passkey = (await owner.storedPasskeys()).find((p) => p.id === response.id);
      if (!passkey) throw refused();
      let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
      // The challenge answered, ours and alive: spent only once the answer verified.
      let challenge: { value: string; deadline: Date } | undefined;
      try {
        verified = await (await webauthn()).verifyAuthenticationResponse({
          response,
          expectedChallenge: (value) => {
            const deadline = challenges.deadline(value);
            if (deadline) challenge = { value, deadline };
            return deadline !== null;
          },
          expectedOrigin,
          expectedRPID: rpID,
          credential: passkey,
          requireUserVerification: false,
        });
      } catch (error) {
        request.log.info({ reason: (error as Error).message }, "passkey sign-in refused");
        throw refused();
      }
      if (!verified.verified || !challenge) throw refused();
      if (!verified.authenticationInfo.userVerified) {
        throw failed(request, new ApiError(401, "unauthorized", unverifiedPasskey));
      }
      const opened = await owner.signInWithPasskey(deviceLabel(request.headers["user-agent"]), {
        passkeyId: passkey.id,
        counter: verified.authenticationInfo.newCounter,
        challenge,
      });
      if (!opened) throw refused();
      return signedIn(request, reply, opened, "passkey");
    },
  );
};
