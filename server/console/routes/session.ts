import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import type { AuthenticatorTransport, verifyRegistrationResponse } from "@simplewebauthn/server";
import { z } from "zod";
import {
  passkeyOptionsResponseSchema,
  passkeyResponseSchema,
  registerPasskeyRequestSchema,
  sessionsResponseSchema,
  whoAmIResponseSchema,
} from "../../../contract/console.ts";
import { ApiError, notFound } from "../../api/errors.ts";
import { removePasskey, revokeSessions } from "../owner-actions.ts";
import { clearOwnerCookie } from "../owner-session.ts";
import { passkeyProblem } from "../passkey-host.ts";
import { unverifiedPasskey, webauthn } from "../webauthn.ts";
import {
  type ConsoleContext,
  noContent,
  refuseIpHost,
  requireFreshSignIn,
  route,
  signedOut,
} from "./context.ts";

const addingAPasskey = "Adding a passkey";

/** The signed-in session: who am I, signing out, the open sessions, and the passkeys. */
export const sessionRoutes: FastifyPluginAsyncZod<ConsoleContext> = async (app, context) => {
  const { config, owner, rpID, expectedOrigin, sessionOf, actor } = context;

  app.get(
    "/session",
    route("The current session and the registered passkeys", whoAmIResponseSchema),
    async (request) => {
      const { id } = sessionOf(request);
      const session = (await owner.listSessions(id)).find((s) => s.current);
      if (!session) throw signedOut();
      return {
        session,
        passkeys: await owner.listPasskeys(),
        passkeysUnavailable: passkeyProblem(config.siteUrl),
      };
    },
  );

  app.post("/sign-out", route("End the current session", noContent), async (request, reply) => {
    const { id } = sessionOf(request);
    await actor(request).act(
      (trx) => owner.revoke({ id }, trx),
      () => ["sign-out"],
    );
    clearOwnerCookie(reply, config.siteUrl);
  });

  app.get(
    "/sessions",
    route("Sessions that can still be used", sessionsResponseSchema),
    async (request) => ({ sessions: await owner.listSessions(sessionOf(request).id) }),
  );

  app.delete(
    "/sessions/:id",
    route("End one session", noContent, {
      params: z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/) }),
    }),
    async (request) => {
      const ended = await revokeSessions(owner, actor(request), { id: request.params.id });
      if (ended === "not_found") {
        throw notFound("There is no such session, or it has ended.");
      }
    },
  );

  // Passkeys

  app.post(
    "/passkeys/options",
    route("WebAuthn options to register a passkey for this site", passkeyOptionsResponseSchema),
    async (request) => {
      const session = sessionOf(request);
      refuseIpHost(config.siteUrl);
      requireFreshSignIn(session, addingAPasskey);
      const existing = await owner.storedPasskeys();
      const options = await (await webauthn()).generateRegistrationOptions({
        rpName: "Engage with Engineer console",
        rpID,
        userName: "owner",
        userDisplayName: "Site owner",
        attestationType: "none",
        excludeCredentials: existing.map((p) => ({
          id: p.id,
          transports: p.transports as AuthenticatorTransport[],
        })),
        // The passkey alone signs the owner in: it must check who holds it (webauthn.ts).
        authenticatorSelection: { residentKey: "preferred", userVerification: "required" },
      });
      await owner.saveChallenge(options.challenge, session.id);
      return { options: options as unknown as Record<string, unknown> };
    },
  );

  app.post(
    "/passkeys",
    route(
      "Register a passkey with the browser's answer to the options",
      { 201: passkeyResponseSchema },
      { body: registerPasskeyRequestSchema },
    ),
    async (request, reply) => {
      const session = sessionOf(request);
      requireFreshSignIn(session, addingAPasskey);
      const refused = () =>
        new ApiError(400, "validation_failed", "The passkey could not be registered; try again.");
      let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      try {
        verified = await (await webauthn()).verifyRegistrationResponse({
          response: request.body.response as unknown as Parameters<
            typeof verifyRegistrationResponse
          >[0]["response"],
          expectedChallenge: (challenge) => owner.takeChallenge(challenge, session.id),
          expectedOrigin,
          expectedRPID: rpID,
          requireUserVerification: false,
        });
      } catch (error) {
        request.log.info({ reason: (error as Error).message }, "passkey registration refused");
        throw refused();
      }
      if (!verified.verified) throw refused();
      if (!verified.registrationInfo.userVerified) {
        throw new ApiError(400, "validation_failed", unverifiedPasskey);
      }
      const { credential } = verified.registrationInfo;
      if ((await owner.storedPasskeys()).some((p) => p.id === credential.id)) {
        throw new ApiError(409, "conflict", "This passkey is registered already.");
      }
      await actor(request).act(
        (trx) =>
          owner.addPasskey(
            {
              id: credential.id,
              publicKey: credential.publicKey,
              counter: credential.counter,
              transports: credential.transports ?? [],
              name: request.body.name,
            },
            trx,
          ),
        () => ["passkey register", request.body.name],
      );
      const passkey = (await owner.listPasskeys()).find((p) => p.id === credential.id);
      if (!passkey) throw refused();
      return reply.code(201).send({ passkey });
    },
  );

  app.delete(
    "/passkeys/:id",
    route("Remove a passkey", noContent, {
      params: z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,1364}$/) }),
    }),
    async (request) => {
      if (!(await removePasskey(owner, actor(request), request.params.id))) {
        throw notFound("No such passkey.");
      }
    },
  );
};
