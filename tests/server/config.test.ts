import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readOwnerProfile } from "../../content/owner.ts";
import { ConfigError, environmentVariables, loadConfig } from "../../server/config.ts";
import { startupLines } from "../../server/startup-line.ts";

const root = path.resolve(import.meta.dirname, "../..");

function refusal(
  env: Record<string, string>,
  writing?: { dir: string; label: string }[],
  ownerProfile?: ReturnType<typeof readOwnerProfile>,
): string {
  try {
    loadConfig(env, {
      ...(writing ? { writing } : {}),
      ...(ownerProfile ? { ownerProfile } : {}),
    });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("the configuration was accepted");
}

const production = {
  NODE_ENV: "production",
  SITE_URL: "https://engage-with-engineer.example",
  CONTACT_EMAIL: "owner@example.com",
  SMTP_URL: "smtps://news:secret@mail.example:465",
  MAIL_FROM: "Engage with Engineer <news@engage-with-engineer.example>",
  // The sample under its own name: a demonstration, which may tell the sample's stories.
  SITE_OWNER_NAME: readOwnerProfile().name,
};

/** The repository's sample profile, made the owner's own. */
const realProfile = {
  ...readOwnerProfile(),
  sample: false,
  name: "Meera Iyer",
  links: [{ label: "LinkedIn", url: "https://www.linkedin.com/in/meera-iyer" }],
};

describe("configuration", () => {
  it("runs with nothing set: SQLite under ./data, port 3000, local URLs", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      NODE_ENV: "development",
      HOST: "0.0.0.0",
      PORT: 3000,
      DATA_DIR: "./data",
      databaseKind: "sqlite",
      siteUrl: "http://localhost:3000",
      contactEmail: "contact@example.com",
      TRUST_PROXY: false,
      LOG_LEVEL: "info",
    });
    expect(config.COOKIE_SECRET).toBeUndefined();
    expect(config.CLIENT_ROOT).toBeUndefined();
  });

  it.each([
    ["SMTP_URL", "http://mail.example", "must be an smtp:// or smtps:// URL"],
    ["MAIL_FROM", "news@example.com\r\nBcc: victim@example.com", "must be an address"],
    ["MAIL_FROM", 'Evil "Name" <news@example.com>', "must be an address"],
    ["MAIL_RATE_PER_MINUTE", "-1", "MAIL_RATE_PER_MINUTE"],
    ["MAIL_CONNECTIONS", "0", "MAIL_CONNECTIONS"],
    ["MAIL_CONNECTIONS", "21", "MAIL_CONNECTIONS"],
    ["SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR", "0", "SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR"],
  ])("refuses %s=%j", (name, value, message) => {
    expect(refusal({ [name]: value })).toContain(message);
  });

  it("accepts a From address with or without a name, and names the owner when it has none", () => {
    expect(
      loadConfig({ MAIL_FROM: "news@example.com" }, { ownerProfile: realProfile }).mailFrom,
    ).toBe("Meera Iyer from Engage with Engineer <news@example.com>");
    expect(
      loadConfig({ MAIL_FROM: "news@example.com", SITE_OWNER_NAME: "Asha Rao" }).mailFrom,
    ).toBe("Asha Rao from Engage with Engineer <news@example.com>");
    expect(loadConfig({ MAIL_FROM: "Engage with Engineer <news@example.com>" }).mailFrom).toBe(
      "Engage with Engineer <news@example.com>",
    );
  });

  it("refuses an owner's name that could split a mail header", () => {
    for (const name of [
      'Asha "Admin" Rao',
      "Asha <asha@example.com>",
      "Asha\nBcc: x@example.com",
    ]) {
      expect(refusal({ SITE_OWNER_NAME: name })).toContain("SITE_OWNER_NAME: must be one line");
    }
  });

  describe("the owner", () => {
    it("comes from content/owner.md, with its LinkedIn profile", () => {
      const { owner } = loadConfig({}, { ownerProfile: realProfile });
      expect(owner).toMatchObject({
        name: "Meera Iyer",
        role: realProfile.role,
        linkedIn: "https://www.linkedin.com/in/meera-iyer",
        sample: false,
      });
    });

    it("takes SITE_OWNER_NAME and OWNER_LINKEDIN_URL over the profile", () => {
      const { owner } = loadConfig(
        {
          SITE_OWNER_NAME: "Asha Rao",
          OWNER_LINKEDIN_URL: "https://www.linkedin.com/in/asha-rao",
        },
        { ownerProfile: realProfile },
      );
      expect(owner).toMatchObject({
        name: "Asha Rao",
        role: realProfile.role,
        linkedIn: "https://www.linkedin.com/in/asha-rao",
      });
    });

    it("shows only the name when the profile is the sample under a real name", () => {
      const { owner } = loadConfig({ SITE_OWNER_NAME: "Asha Rao" });
      expect(owner).toEqual({
        name: "Asha Rao",
        role: null,
        location: null,
        practisingSince: null,
        education: [],
        areas: [],
        photo: null,
        links: [],
        linkedIn: null,
        sample: false,
      });
      expect(loadConfig({}).owner).toMatchObject({ name: "Arjun Rao", sample: true });
    });
  });

  it("treats empty values as unset, as .env.example leaves them", () => {
    const config = loadConfig({ DATABASE_URL: "", SITE_URL: " ", COOKIE_SECRET: "" });
    expect(config.databaseKind).toBe("sqlite");
    expect(config.siteUrl).toBe("http://localhost:3000");
  });

  it("reads PostgreSQL, the site URL without its trailing slash, and numbers", () => {
    const config = loadConfig({
      DATABASE_URL: "postgresql://ewe@db/ewe",
      SITE_URL: "https://example.com/",
      PORT: "8080",
      TRUST_PROXY: "1",
      RATE_LIMIT_WINDOW_SECONDS: "30",
    });
    expect(config).toMatchObject({
      databaseKind: "postgres",
      siteUrl: "https://example.com",
      PORT: 8080,
      TRUST_PROXY: 1,
      RATE_LIMIT_WINDOW_SECONDS: 30,
    });
  });

  it.each([
    ["NODE_ENV", "staging"],
    ["PORT", "eighty"],
    ["PORT", "70000"],
    ["DATABASE_URL", "mysql://root@db/ewe"],
    ["COOKIE_SECRET", "too-short"],
    ["SITE_URL", "example.com"],
    ["SITE_URL", "ftp://example.com"],
    ["SITE_URL", "https://example.com/blog"],
    ["SITE_URL", "https://example.com/?lang=en"],
    ["CONTACT_EMAIL", "owner-at-example.com"],
    ["CHATBOT_SCRIPT_URL", "http://chatbot.example/embed.js"],
    ["OWNER_LINKEDIN_URL", "http://www.linkedin.com/in/someone"],
    ["TRUST_PROXY", "yes"],
    ["TRUST_PROXY", "true"],
    ["TRUST_PROXY", "127.0.0.1, proxy.internal"],
    ["TRUST_PROXY", "10.0.0.0/33"],
    ["RATE_LIMIT_WRITES_PER_VISITOR", "0"],
    ["RATE_LIMIT_WRITES_PER_IP", "1.5"],
    ["RATE_LIMIT_WINDOW_SECONDS", "-1"],
    ["EVENT_STREAMS_MAX", "lots"],
    ["EVENT_STREAMS_PER_IP", "0"],
    ["EVENT_STREAMS_PER_VISITOR", "2.5"],
    ["HEADERS_TIMEOUT_SECONDS", "0"],
    ["REQUEST_TIMEOUT_SECONDS", "soon"],
    ["IDLE_TIMEOUT_SECONDS", "-5"],
    ["KEEP_ALIVE_TIMEOUT_SECONDS", "7200"],
    ["LOG_LEVEL", "verbose"],
  ])("refuses %s=%s with a message that names it", (name, value) => {
    expect(refusal({ [name]: value })).toMatch(new RegExp(`^Invalid configuration:\\n  ${name}: `));
  });

  it("trusts X-Forwarded-For from a number of hops or from listed proxies, never from everyone", () => {
    expect(loadConfig({ TRUST_PROXY: "0" }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "2" }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: "127.0.0.1, 10.0.0.0/8,::1,loopback" }).TRUST_PROXY).toEqual([
      "127.0.0.1",
      "10.0.0.0/8",
      "::1",
      "loopback",
    ]);
    expect(refusal({ TRUST_PROXY: "true" })).toMatch(
      /TRUST_PROXY: true is no longer accepted: it let any client forge its address. Give the number of proxies/,
    );
  });

  it("has timeouts for slow clients by default, and wants the headers' within the request's", () => {
    expect(loadConfig({})).toMatchObject({
      HEADERS_TIMEOUT_SECONDS: 10,
      REQUEST_TIMEOUT_SECONDS: 30,
      IDLE_TIMEOUT_SECONDS: 30,
      KEEP_ALIVE_TIMEOUT_SECONDS: 72,
    });
    expect(refusal({ HEADERS_TIMEOUT_SECONDS: "40" })).toContain(
      "HEADERS_TIMEOUT_SECONDS: must not exceed REQUEST_TIMEOUT_SECONDS",
    );
  });

  it("takes a model to write the assistant's answers only with its endpoint, and the endpoint only with its model", () => {
    expect(refusal({ ASSISTANT_LLM_URL: "http://127.0.0.1:11434/v1" })).toContain(
      "ASSISTANT_LLM_MODEL: is required with ASSISTANT_LLM_URL",
    );
    expect(refusal({ ASSISTANT_LLM_MODEL: "llama3.1:8b" })).toContain(
      "ASSISTANT_LLM_URL: is required with ASSISTANT_LLM_MODEL",
    );
    expect(
      refusal({ ASSISTANT_LLM_URL: "file:///etc/passwd", ASSISTANT_LLM_MODEL: "m" }),
    ).toContain("ASSISTANT_LLM_URL: must be an absolute http:// or https:// URL");
    const config = loadConfig({
      ASSISTANT_LLM_URL: "http://127.0.0.1:11434/v1",
      ASSISTANT_LLM_MODEL: "llama3.1:8b",
    });
    expect(config.ASSISTANT_LLM_TIMEOUT_MS).toBe(10_000);
  });

  it("shares the port between processes on PostgreSQL only: SQLite is for one process", () => {
    expect(refusal({ SHARE_PORT: "on" })).toContain(
      "DATABASE_URL: is required with SHARE_PORT (several processes on one port: SQLite is for one process)",
    );
    expect(loadConfig({}).SHARE_PORT).toBe(false);
    expect(
      loadConfig({ SHARE_PORT: "on", DATABASE_URL: "postgres://localhost/ewe" }).SHARE_PORT,
    ).toBe(true);
  });

  it("reports every problem at once", () => {
    const message = refusal({ PORT: "x", LOG_LEVEL: "loud", CONTACT_EMAIL: "nope" });
    expect(message.split("\n")).toHaveLength(4);
  });

  it("says a number is wanted where a setting's value is not one", () => {
    const message = refusal({ PORT: "eighty", MAIL_RATE_PER_MINUTE: "lots" });
    expect(message).toContain("  PORT: must be a number");
    expect(message).toContain("  MAIL_RATE_PER_MINUTE: must be a number");
    expect(message).not.toContain("NaN");
  });

  it("never repeats a secret in its messages", () => {
    const message = refusal({
      COOKIE_SECRET: "hunter2-but-short",
      DATABASE_URL: "mysql://admin:pa55word@db/ewe",
    });
    expect(message).not.toContain("hunter2");
    expect(message).not.toContain("pa55word");
  });

  it("wants the chatbot's script and bot id together", () => {
    expect(refusal({ CHATBOT_SCRIPT_URL: "https://chatbot.example/embed.js" })).toContain(
      "CHATBOT_BOT_ID: CHATBOT_SCRIPT_URL and CHATBOT_BOT_ID must be set together",
    );
    expect(refusal({ CHATBOT_BOT_ID: "bot" })).toContain("CHATBOT_BOT_ID");
  });

  describe("in production", () => {
    it("accepts a complete, safe configuration", () => {
      expect(loadConfig(production).siteUrl).toBe("https://engage-with-engineer.example");
    });

    it("refuses to start while content/owner.md is the sample and SITE_OWNER_NAME is unset", () => {
      const { SITE_OWNER_NAME: _name, ...env } = production;
      expect(refusal(env)).toContain(
        "content/owner.md: is still the sample profile that comes with the site",
      );
      expect(refusal({ ...env, SITE_OWNER_NAME: " " })).toContain("content/owner.md");
      // (The repository's writing is the sample's: the owner's own is none.)
      expect(loadConfig(env, { ownerProfile: realProfile, writing: [] }).owner.name).toBe(
        "Meera Iyer",
      );
      // Every problem at once: the owner's profile beside a missing variable.
      const { SMTP_URL: _smtp, ...both } = env;
      const message = refusal(both);
      expect(message).toContain("SMTP_URL: is required in production");
      expect(message).toContain("content/owner.md: is still the sample profile");
    });

    describe("and the sample engineer's first-person passages", () => {
      let dir: string;
      const passage = (text: string) =>
        `---\ntitle: "x"\n---\n\nIntro.\n\n<!-- sample-voice -->\n${text}\n<!-- /sample-voice -->\n`;
      const write = (file: string, source: string) => {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), source);
      };
      const writing = () => [
        { dir: path.join(dir, "content"), label: "content" },
        { dir: path.join(dir, "newsletter"), label: "newsletter" },
      ];
      beforeEach(() => {
        dir = mkdtempSync(path.join(os.tmpdir(), "ewe-sample-voice-"));
        write("content/about.md", passage("I once found a crack.\n\nAnd another."));
        write("content/services/dfmea.md", passage("In one session I facilitated…"));
        write("content/science/soap.md", "---\nid: soap\n---\n\nNo stories here.\n");
        write("newsletter/01-pressure.md", passage("Of the injector returns I reviewed…"));
      });
      afterEach(() => rmSync(dir, { recursive: true, force: true }));

      it("refuses to start under any other name, naming every file that holds one", () => {
        const message = refusal({ ...production, SITE_OWNER_NAME: "Meera Iyer" }, writing());
        expect(message).toContain("first-person passages written for the sample engineer remain");
        expect(message).toContain(
          "in content/about.md, content/services/dfmea.md, newsletter/01-pressure.md.",
        );
        expect(message).not.toContain("soap.md");
        expect(message).toContain("README, First run");
        // The owner's own profile, under its own name, is refused the same way.
        const { SITE_OWNER_NAME: _name, ...own } = production;
        expect(refusal(own, writing(), realProfile)).toContain("content/about.md");
      });

      it("starts once every passage is rewritten or deleted", () => {
        write("content/about.md", "---\ntitle: x\n---\n\nMy own career.\n");
        write("content/services/dfmea.md", "---\ntitle: x\n---\n\nMy own DFMEA.\n");
        rmSync(path.join(dir, "newsletter/01-pressure.md"));
        const env = { ...production, SITE_OWNER_NAME: "Meera Iyer" };
        expect(loadConfig(env, { writing: writing() }).owner.name).toBe("Meera Iyer");
      });

      it("starts as the sample under the sample's own name, stories and all", () => {
        expect(loadConfig(production, { writing: writing() }).owner.sample).toBe(true);
        // Outside production the stories are the sample's, under any name.
        const { NODE_ENV: _production, ...development } = production;
        const env = { ...development, SITE_OWNER_NAME: "Meera Iyer" };
        expect(loadConfig(env, { writing: writing() }).owner.name).toBe("Meera Iyer");
      });

      it("says where a marker is out of place instead of guessing", () => {
        write("content/about.md", "---\ntitle: x\n---\n\n<!-- sample-voice -->\nNever closed.\n");
        expect(refusal({ ...production, SITE_OWNER_NAME: "Meera Iyer" }, writing())).toContain(
          "content/about.md: line 5: the sample-voice passage is never closed",
        );
      });
    });

    it.each([
      ["SITE_URL", "is required in production"],
      ["CONTACT_EMAIL", "is required in production"],
      ["SMTP_URL", "is required in production"],
      ["MAIL_FROM", "is required in production"],
    ])("refuses to start without %s", (name, message) => {
      const { [name as keyof typeof production]: _left, ...env } = production;
      expect(refusal(env)).toContain(`${name}: ${message}`);
    });

    it("refuses a plain-http SITE_URL, except on localhost", () => {
      expect(refusal({ ...production, SITE_URL: "http://engage-with-engineer.example" })).toContain(
        "SITE_URL: must be an https URL in production",
      );
      for (const local of ["http://localhost:3000", "http://127.0.0.1:4173", "http://[::1]:3000"]) {
        expect(loadConfig({ ...production, SITE_URL: local }).siteUrl).toBe(local);
      }
    });

    it("refuses the model's key over plain http, except to localhost", () => {
      const keyed = {
        ...production,
        ASSISTANT_LLM_MODEL: "llama3.1:8b",
        ASSISTANT_LLM_API_KEY: "k",
      };
      expect(refusal({ ...keyed, ASSISTANT_LLM_URL: "http://llm.example.net/v1" })).toContain(
        "ASSISTANT_LLM_URL: must be https in production with ASSISTANT_LLM_API_KEY",
      );
      for (const url of ["https://llm.example.net/v1", "http://127.0.0.1:11434/v1"]) {
        expect(loadConfig({ ...keyed, ASSISTANT_LLM_URL: url }).ASSISTANT_LLM_URL).toBe(url);
      }
      // Without a key (Ollama on the owner's own network), http stays the owner's choice.
      const { ASSISTANT_LLM_API_KEY: _key, ...unkeyed } = keyed;
      const lan = "http://192.168.1.20:11434/v1";
      expect(loadConfig({ ...unkeyed, ASSISTANT_LLM_URL: lan }).ASSISTANT_LLM_URL).toBe(lan);
    });

    it("refuses PostgreSQL without a shared COOKIE_SECRET", () => {
      const env = { ...production, DATABASE_URL: "postgres://ewe@db/ewe" };
      expect(refusal(env)).toContain("COOKIE_SECRET: is required in production with DATABASE_URL");
      expect(loadConfig({ ...env, COOKIE_SECRET: "c".repeat(32) }).databaseKind).toBe("postgres");
    });

    it("leaves the rules to the server when the client build reads the settings", () => {
      // Production without SITE_URL is refused by the server's rules; the build gets the default.
      expect(refusal({ NODE_ENV: "production" })).toContain("SITE_URL");
      expect(loadConfig({ NODE_ENV: "production" }, { productionRules: false }).siteUrl).toBe(
        "http://localhost:3000",
      );
    });
  });

  describe("documentation", () => {
    it(".env.example lists every variable once, and nothing else", () => {
      const listed = readFileSync(path.join(root, ".env.example"), "utf8")
        .split("\n")
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => line.slice(0, line.indexOf("=")));
      expect(listed.toSorted()).toEqual(environmentVariables.toSorted());
    });

    it(".env.example, copied whole as the process manager's env file, starts the site", () => {
      const file = readFileSync(path.join(root, ".env.example"), "utf8");
      const env = Object.fromEntries(
        file
          .split("\n")
          .filter((line) => /^[A-Z_]+=/.test(line))
          .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
      );
      expect(env.DATABASE_STATEMENT_TIMEOUT_SECONDS).toBe("");
      const config = loadConfig(env);
      expect(config).toMatchObject({ PORT: 3000, DATABASE_STATEMENT_TIMEOUT_SECONDS: 10 });
    });

    it("docs/configuration.md's table lists every variable", () => {
      const table = readFileSync(path.join(root, "docs/configuration.md"), "utf8");
      for (const name of environmentVariables) expect(table).toContain(`| \`${name}\` |`);
    });

    it("the defaults docs/configuration.md, the README and .env.example give are the server's", () => {
      // With nothing set, each variable the server reads as a plain value takes its
      // default; a default written as a plain value in the docs must be that value.
      const defaults: Record<string, unknown> = loadConfig({});
      const said = (value: unknown) =>
        value === true ? "on" : value === false ? ["off", "false"] : String(value);
      const wrong: string[] = [];
      const compare = (file: string, name: string, written: string) => {
        if (!(environmentVariables as readonly string[]).includes(name)) return;
        const value = defaults[name];
        if (value === undefined || !/^[\w./:-]+$/.test(written)) return;
        if (![said(value)].flat().includes(written))
          wrong.push(`${file}: ${name} says ${written}, the server ${String(value)}`);
      };
      let rows = 0;
      for (const file of ["docs/configuration.md", "README.md"]) {
        const text = readFileSync(path.join(root, file), "utf8");
        for (const [, name = "", written = ""] of text.matchAll(
          /^\| `([A-Z][A-Z0-9_]*)` \| `([^`]+)` \|/gm,
        )) {
          rows += 1;
          compare(file, name, written);
        }
      }
      for (const [, name = "", written = ""] of readFileSync(
        path.join(root, ".env.example"),
        "utf8",
      ).matchAll(/^([A-Z][A-Z0-9_]*)=(\S+)$/gm)) {
        rows += 1;
        compare(".env.example", name, written);
      }
      expect(rows).toBeGreaterThan(80);
      expect(wrong).toEqual([]);
    });

    it("the tables of docs/configuration.md and the README name no variable the server does not read", () => {
      // Node's own variable, documented beside the server's.
      const known = new Set<string>([...environmentVariables, "NODE_COMPILE_CACHE"]);
      for (const file of ["docs/configuration.md", "README.md"]) {
        const named = [
          ...readFileSync(path.join(root, file), "utf8").matchAll(/^\| `([A-Z][A-Z0-9_]*)`/gm),
        ].map((match) => match[1]);
        expect(named.length, file).toBeGreaterThan(5);
        expect(
          named.filter((name) => !known.has(name ?? "")),
          file,
        ).toEqual([]);
      }
    });
  });
});

describe("the lines printed at start", () => {
  const lines = (env: Record<string, string>) => startupLines(loadConfig(env)).join("\n");

  it("tells an owner on another port to give the sign-in command that port too", () => {
    // Without SITE_URL the command makes its link from its own shell's PORT.
    expect(lines({ PORT: "4781" })).toContain(
      "The console is at http://localhost:4781/admin: sign in with `PORT=4781 npm run admin -- login`.",
    );
    expect(lines({})).toContain("sign in with `npm run admin -- login`.");
    expect(lines({ PORT: "4781", SITE_URL: "https://engineer.example" })).toContain(
      "The console is at https://engineer.example/admin: sign in with `npm run admin -- login`.",
    );
  });

  it("tells an owner with their own data folder to give the sign-in command that folder too", () => {
    // Without it the command looks in ./data, where the server has no database.
    expect(lines({ PORT: "4781", DATA_DIR: "/tmp/ewe data" })).toContain(
      "sign in with `PORT=4781 DATA_DIR='/tmp/ewe data' npm run admin -- login`.",
    );
    expect(lines({ DATA_DIR: "/srv/ewe" })).toContain(
      "sign in with `DATA_DIR=/srv/ewe npm run admin -- login`.",
    );
    expect(lines({ DATA_DIR: "/srv/ewe", DATABASE_URL: "postgres://u:p@db/ewe" })).toContain(
      "sign in with `npm run admin -- login`.",
    );
  });
});
