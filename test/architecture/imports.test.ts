/**
 * The shape of src/, read from the TypeScript sources themselves:
 * dependencies between its top-level folders point one way (no cycle), the
 * providers every front end stands on reach up into none of them, and the
 * front ends can be read without one another.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../../src/", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports, statically or dynamically. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gm,
    /\bimport\s*\(\s*["']([^"']+)["']/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) found.push(match[1] as string);
  }
  return found;
}

/** The top-level folder of a path under src ("(root)" for a file directly in it). */
function folderOf(path: string): string {
  const parts = relative(SRC, path).split("/");
  return parts.length > 1 ? (parts[0] as string) : "(root)";
}

interface Edge {
  readonly from: string;
  readonly to: string;
  /** One file import that makes the edge, to say where to look. */
  readonly example: string;
}

/** Imports between different top-level folders, plus imports of npm packages. */
function folderImports(): { edges: Edge[]; packages: Map<string, string[]> } {
  const edges = new Map<string, Edge>();
  const packages = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const from = folderOf(file);
    for (const spec of specifiers(readFileSync(file, "utf8"))) {
      if (spec.startsWith("node:")) continue;
      if (!spec.startsWith(".")) {
        packages.set(from, [...(packages.get(from) ?? []), `${relative(SRC, file)}: ${spec}`]);
        continue;
      }
      const to = folderOf(resolve(dirname(file), spec));
      const key = `${from} ${to}`;
      if (to !== from && !edges.has(key))
        edges.set(key, { from, to, example: `${relative(SRC, file)} imports ${spec}` });
    }
  }
  return { edges: [...edges.values()], packages };
}

/** Each elementary cycle found by a depth-first walk, as the edges that make it. */
function cycles(edges: readonly Edge[]): Edge[][] {
  const out = new Map<string, Edge[]>();
  const next = new Map<string, Edge[]>();
  for (const edge of edges) next.set(edge.from, [...(next.get(edge.from) ?? []), edge]);
  const state = new Map<string, "open" | "done">();
  const path: Edge[] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    for (const edge of next.get(node) ?? []) {
      if (state.get(edge.to) === "open") {
        const start = path.findIndex((e) => e.from === edge.to);
        const cycle = [...(start < 0 ? [] : path.slice(start)), edge];
        out.set(cycle.map((e) => e.from).join(" -> "), cycle);
      } else if (!state.has(edge.to)) {
        path.push(edge);
        visit(edge.to);
        path.pop();
      }
    }
    state.set(node, "done");
  };
  for (const node of [...next.keys()].sort()) if (!state.has(node)) visit(node);
  return [...out.values()];
}

test("no import cycle between the top-level folders of src", () => {
  const found = cycles(folderImports().edges).map((cycle) =>
    [
      `${cycle.map((e) => e.from).join(" -> ")} -> ${cycle[0]?.from}`,
      ...cycle.map((e) => `  ${e.example}`),
    ].join("\n"),
  );
  assert.deepEqual(found, []);
});

test("the cycle finder names a cycle", () => {
  const edges: Edge[] = [
    { from: "a", to: "b", example: "a/x.ts imports ../b/y.js" },
    { from: "b", to: "c", example: "b/y.ts imports ../c/z.js" },
    { from: "c", to: "a", example: "c/z.ts imports ../a/x.js" },
    { from: "c", to: "d", example: "c/z.ts imports ../d/w.js" },
  ];
  assert.deepEqual(
    cycles(edges).map((cycle) => cycle.map((e) => e.from)),
    [["a", "b", "c"]],
  );
});

test("providers import only node:*, other providers, src/system and src/text", () => {
  const { edges, packages } = folderImports();
  const wrong = edges
    .filter((e) => e.from === "providers" && !["system", "text"].includes(e.to))
    .map((e) => e.example);
  assert.deepEqual([...wrong, ...(packages.get("providers") ?? [])], []);
});

test("the shared layers below the front ends reach up into none of them", () => {
  const frontEnds = [
    "agent",
    "promises",
    "check",
    "cli",
    "puppet",
    "recipes",
    "rudder",
    "server",
    "execd",
    "monitor",
    "hub",
  ];
  const shared = ["system", "text", "providers", "catalog", "net", "reporting"];
  const wrong = folderImports()
    .edges.filter((e) => shared.includes(e.from) && frontEnds.includes(e.to))
    .map((e) => e.example);
  assert.deepEqual(wrong, []);
});

test("the front ends can be read without one another", () => {
  const frontEnds = ["puppet", "recipes", "rudder"];
  const wrong = folderImports()
    .edges.filter((e) => frontEnds.includes(e.from) && frontEnds.includes(e.to))
    .map((e) => e.example);
  assert.deepEqual(wrong, []);
});

test("only the command line imports the server", () => {
  const wrong = folderImports()
    .edges.filter((e) => e.to === "server" && e.from !== "cli")
    .map((e) => e.example);
  assert.deepEqual(wrong, []);
});

test("net imports only node:*, src/system and src/text", () => {
  const { edges, packages } = folderImports();
  const wrong = edges
    .filter((e) => e.from === "net" && !["system", "text"].includes(e.to))
    .map((e) => e.example);
  assert.deepEqual([...wrong, ...(packages.get("net") ?? [])], []);
});

test("only the command line imports the monitor, and the monitor imports no agent, server or cli", () => {
  const edges = folderImports().edges;
  const wrong = [
    ...edges.filter((e) => e.to === "monitor" && e.from !== "cli"),
    ...edges.filter((e) => e.from === "monitor" && ["agent", "server", "cli", "check"].includes(e.to)),
  ].map((e) => e.example);
  assert.deepEqual(wrong, []);
});

test("only the command line imports execd, which runs the agent as a child and imports neither", () => {
  const wrong = folderImports()
    .edges.filter(
      (e) =>
        (e.to === "execd" && e.from !== "cli") || (e.from === "execd" && ["agent", "cli"].includes(e.to)),
    )
    .map((e) => e.example);
  assert.deepEqual(wrong, []);
});

test("reporting, the node side of the hub, imports only node:*, src/net, src/system and src/text", () => {
  const { edges, packages } = folderImports();
  const wrong = edges
    .filter((e) => e.from === "reporting" && !["net", "system", "text"].includes(e.to))
    .map((e) => e.example);
  assert.deepEqual([...wrong, ...(packages.get("reporting") ?? [])], []);
});

test("only the command line imports the hub", () => {
  const wrong = folderImports()
    .edges.filter((e) => e.to === "hub" && e.from !== "cli")
    .map((e) => e.example);
  assert.deepEqual(wrong, []);
});
