import type { AstroIntegration } from "astro";
import type { DeferredOptions } from "./deferred-directive.ts";

/** Registers `client:deferred`, the one hydration strategy the site's islands use. */
export function deferredHydration(): AstroIntegration {
  return {
    name: "deferred-hydration",
    hooks: {
      "astro:config:setup": ({ addClientDirective }) => {
        addClientDirective({
          name: "deferred",
          entrypoint: new URL("./deferred-directive.ts", import.meta.url).pathname,
        });
      },
    },
  };
}

declare module "astro" {
  interface AstroClientDirectives {
    /** After `load`, when idle (or when visible, with `{ visible: true }`; at the reader's first activity, with `{ activity: true }`), or at the first interaction (app/islands/deferred-directive.ts). */
    "client:deferred"?: boolean | DeferredOptions;
  }
}
