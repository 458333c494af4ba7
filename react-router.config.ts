import type { Config } from "@react-router/dev/config";
import { prerenderedPaths } from "./app/navigation.ts";

export default {
  ssr: false,
  prerender: prerenderedPaths,
} satisfies Config;
