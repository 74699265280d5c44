/**
 * How functions that define classes of their own (usemodule() and
 * read_module_protocol() with `^persistence`) keep them across runs: the
 * agent installs a persister per evaluation context; without one (a plain
 * evaluation), such classes last for the run only.
 */
import type { EvalContext } from "../context.js";

export type ClassPersister = (name: string, minutes: number, tags: readonly string[]) => void;

const persisters = new WeakMap<EvalContext, ClassPersister>();

export function setClassPersister(ctx: EvalContext, persister: ClassPersister): void {
  persisters.set(ctx, persister);
}

export function classPersister(ctx: EvalContext): ClassPersister | undefined {
  return persisters.get(ctx);
}
