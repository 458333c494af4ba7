import type { ReactNode } from "react";

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="mb-10">
      <h1 className="text-3xl font-bold tracking-tight text-slate-50 sm:text-4xl">{title}</h1>
      {children ? <div className="mt-4 max-w-3xl text-lg text-slate-300">{children}</div> : null}
    </header>
  );
}
