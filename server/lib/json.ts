import type { z } from "zod";

/** JSON text as `schema` reads it: null when there is none, it is not JSON or not of that shape. */
export function jsonOf<T>(text: unknown, schema: z.ZodType<T>): T | null {
  if (typeof text !== "string") return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
