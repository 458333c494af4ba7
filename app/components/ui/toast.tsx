import { useCallback, useEffect, useRef, useState } from "react";

/** A message that disappears by itself after `duration` ms. */
export function useTimedMessage(duration: number) {
  const [message, setMessage] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const show = useCallback(
    (text: string) => {
      clearTimeout(timer.current);
      setMessage(text);
      timer.current = setTimeout(() => setMessage(null), duration);
    },
    [duration],
  );
  useEffect(() => () => clearTimeout(timer.current), []);
  return [message, show] as const;
}

/** Announced politely to screen readers; sits above the page at the bottom. */
export function Toast({ message }: { message: string | null }) {
  return (
    <div
      role="status"
      aria-live="polite"
      className="pointer-events-none fixed inset-x-0 bottom-6 z-50 flex justify-center px-4"
    >
      {message ? (
        <p className="animate-fade-in rounded-xl bg-accent px-5 py-3 text-sm font-semibold text-ink shadow-lg shadow-black/40">
          {message}
        </p>
      ) : null}
    </div>
  );
}
