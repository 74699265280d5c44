/**
 * Helpers for the converge tests: a temporary directory removed after the
 * test, recipes compiled from functions, a run whose events are kept, and
 * a fake machine for services (a tool runner that records what it is asked
 * and keeps each service's state), so nothing outside the temporary
 * directory is touched.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import type { ResourceCollection } from "../../../src/recipes/collection.js";
import { compileRecipes } from "../../../src/recipes/compile.js";
import {
  type ConvergeEvent,
  type ConvergeOptions,
  converge,
  type RunStatus,
} from "../../../src/recipes/converge.js";
import type { Recipe } from "../../../src/recipes/dsl.js";
import type { ToolRunner } from "../../../src/providers/tool-runner.js";

export function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "tend-recipes-converge-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function compile(recipe: Recipe, name = "test::default"): Promise<ResourceCollection> {
  const collection = await compileRecipes([{ name, run: recipe }]);
  if (collection.diagnostics.length > 0)
    throw new Error(collection.diagnostics.map((d) => d.message).join("\n"));
  return collection;
}

export interface Run {
  readonly status: RunStatus;
  readonly events: ConvergeEvent[];
  /** `ref action status` per action event, in order; notified ones marked. */
  readonly journal: string[];
}

export async function run(collection: ResourceCollection, options: ConvergeOptions = {}): Promise<Run> {
  const events: ConvergeEvent[] = [];
  const status = await converge(collection, { ...options, onEvent: (e) => events.push(e) });
  const journal = events.flatMap((e) =>
    e.kind === "action"
      ? [
          `${e.ref} ${e.action} ${e.status}${e.skippedBy ? ` (${e.skippedBy})` : ""}${e.notified ? " (notified)" : ""}`,
        ]
      : e.kind === "would-notify"
        ? [e.message]
        : [],
  );
  return { status, events, journal };
}

/** A machine of services kept in memory: the `base` provider's commands change it. */
export function fakeServices(): { tools: ToolRunner; calls: string[]; running: Set<string> } {
  const calls: string[] = [];
  const running = new Set<string>();
  const tools: ToolRunner = (argv) => {
    const command = argv[0] === "/bin/sh" ? (argv[2] ?? "") : argv.join(" ");
    calls.push(command);
    const [verb, name = ""] = command.split(" ");
    if (verb === "status") return { status: running.has(name) ? 0 : 3, stdout: "", stderr: "" };
    if (verb === "start") running.add(name);
    if (verb === "stop") running.delete(name);
    return { status: 0, stdout: "", stderr: "" };
  };
  return { tools, calls, running };
}

/** Service properties for the fake machine. */
export function fakeService(name: string) {
  return {
    provider: "base" as const,
    statusCommand: `status ${name}`,
    startCommand: `start ${name}`,
    stopCommand: `stop ${name}`,
    restartCommand: `restart ${name}`,
  };
}
