/*
 * A small seeded fuzzer for the endpoints' bad-input tests: it takes a valid
 * input and changes it the ways a broken client, a confused provider or an
 * attacker would, the same way for the same seed, so a failure can be run
 * again from the seed its message names.
 */

/** mulberry32: a seeded generator of numbers in [0, 1). */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Strings that have broken parsers, databases and headers elsewhere. */
const nasty = [
  "",
  " ",
  "null",
  "0",
  "-1",
  "1e309",
  "99999999999999999999",
  "NaN",
  "not an address",
  "@",
  "a@b",
  `${"x".repeat(300)}@example.org`,
  "\u0000",
  "\ud800",
  "\u202Eevil",
  "'; drop table suppressions; --",
  "%00%2e%2e%2f",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "https://evil.example/",
  "//evil.example",
  "x".repeat(70_000),
  "Ω≈ç√∫˜µ≤≥÷",
  "🙏".repeat(500),
];

export type Fuzzer = {
  random: () => number;
  pick<T>(values: readonly T[]): T;
  /** A value of any JSON type, often a nasty one. */
  anyValue(depth?: number): unknown;
  /** `value` with one to three changes: a leaf replaced, a key dropped or added, a type swapped. */
  mutate(value: unknown): unknown;
  /** `text` cut, repeated, or with bytes flipped, inserted or removed. */
  mangle(text: string): string;
};

export function fuzzer(seed: number): Fuzzer {
  const random = seeded(seed);
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(values: readonly T[]): T => values[int(values.length)] as T;

  function anyValue(depth = 0): unknown {
    switch (int(depth > 1 ? 5 : 7)) {
      case 0:
        return null;
      case 1:
        return pick([0, -1, 1.5, 2 ** 53, -(2 ** 31) - 1, 1e308]);
      case 2:
        return random() < 0.5;
      case 3:
      case 4:
        return pick(nasty);
      case 5:
        return Array.from({ length: int(4) }, () => anyValue(depth + 1));
      default:
        return Object.fromEntries(
          Array.from({ length: int(4) }, () => [pick(nasty).slice(0, 40), anyValue(depth + 1)]),
        );
    }
  }

  function mutateOnce(value: unknown): unknown {
    if (Array.isArray(value)) {
      if (value.length === 0 || random() < 0.2) return [...value, anyValue(1)];
      const at = int(value.length);
      if (random() < 0.2) return value.filter((_, i) => i !== at);
      return value.map((item, i) => (i === at ? mutateOnce(item) : item));
    }
    if (value !== null && typeof value === "object") {
      const entries = Object.entries(value);
      if (entries.length === 0 || random() < 0.15) {
        return { ...value, [pick(nasty).slice(0, 40)]: anyValue(1) };
      }
      const at = int(entries.length);
      if (random() < 0.2) return Object.fromEntries(entries.filter((_, i) => i !== at));
      return Object.fromEntries(
        entries.map(([key, item], i) => [key, i === at ? mutateOnce(item) : item]),
      );
    }
    return random() < 0.7 ? anyValue(1) : value;
  }

  function mangle(text: string): string {
    const at = int(text.length + 1);
    switch (int(6)) {
      case 0:
        return text.slice(0, at);
      case 1:
        return text.slice(0, at) + pick(nasty).slice(0, 200) + text.slice(at);
      case 2:
        return text.slice(0, at) + text.slice(at + 1 + int(8));
      case 3:
        return text.slice(0, at) + String.fromCharCode(int(0x10000)) + text.slice(at + 1);
      case 4:
        return text + text;
      default:
        return text.slice(at) + text.slice(0, at);
    }
  }

  return {
    random,
    pick,
    anyValue,
    mutate(value) {
      let changed = value;
      for (let n = 1 + int(3); n > 0; n -= 1) changed = mutateOnce(changed);
      return changed;
    },
    mangle,
  };
}

/**
 * The seed of these runs: FUZZ_SEED when given (to explore, or to run a
 * failure again), else a fixed one, so the suite gives the same answer twice.
 */
export const fuzzSeed = (): number => Number(process.env.FUZZ_SEED ?? 20261202);
