/**
 * Replays the lookups recorded against Puppet 7.23 (test/fixtures/puppet-hiera:
 * cases.json, expected.json) through tend's Hiera and `lookup` function,
 * and says where the answers differ.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PuppetEnvironment, PuppetModule } from "../../../src/puppet/env/environment.js";
import type { CallContext } from "../../../src/puppet/eval/functions/registry.js";
import { PHash, type PCallable, PSensitive, type PValue } from "../../../src/puppet/eval/values.js";
import { hieraFunctions, openHiera } from "../../../src/puppet/hiera/index.js";
import { PSymbol } from "../../../src/puppet/hiera/psych.js";
import { parseTypeString } from "../../../src/puppet/hiera/type-string.js";

export const fixtureDir = fileURLToPath(
  new URL("../../../../test/fixtures/puppet-hiera/", import.meta.url),
).replace(/\/$/, "");

type Json = unknown;
interface Case {
  fn?: string;
  a: Json[];
  block?: boolean;
}
interface Setup {
  id: string;
  env: string;
  node: string;
  global: string;
  vars: Record<string, Json>;
  cases: Case[];
}
interface Recorded {
  id: string;
  scope: Json;
  results: { code: string; value?: Json; error?: string; warnings?: string[] }[];
}

export interface Outcome {
  readonly setup: string;
  readonly code: string;
  readonly expected: Json;
  readonly actual: Json;
}

function decodeArg(a: Json): PValue {
  if (a === null) return undefined;
  if (typeof a === "number") return BigInt(a);
  if (typeof a === "string" || typeof a === "boolean") return a;
  if (Array.isArray(a)) return a.map(decodeArg);
  const o = a as { T?: string; H?: [Json, Json][] };
  if (o.T !== undefined) {
    return parseTypeString(o.T);
  }
  return PHash.from((o.H ?? []).map(([k, v]) => [decodeArg(k), decodeArg(v)] as const));
}

/** A recorded value (record.rb's `enc`) as a PValue. */
export function decodeValue(v: Json): PValue {
  if (v === null) return undefined;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(decodeValue);
  const o = v as { i?: string; f?: number | string; h?: [Json, Json][]; sensitive?: Json };
  if (o.i !== undefined) return BigInt(o.i);
  if (o.f !== undefined) return typeof o.f === "number" ? o.f : Number(o.f === "Infinity" ? Infinity : o.f);
  if (o.h !== undefined) return PHash.from(o.h.map(([k, x]) => [decodeValue(k), decodeValue(x)] as const));
  if (o.sensitive !== undefined) return new PSensitive(decodeValue(o.sensitive));
  throw new Error(`cannot decode ${JSON.stringify(v)}`);
}

/** A PValue in record.rb's encoding. */
export function encodeValue(v: PValue): Json {
  if (v === undefined) return null;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "bigint") return { i: v.toString() };
  if (typeof v === "number") return { f: Number.isFinite(v) ? v : String(v) };
  if (Array.isArray(v)) return v.map(encodeValue);
  if (v instanceof PHash) return { h: [...v].map(([k, x]) => [encodeValue(k), encodeValue(x)]) };
  if (v instanceof PSensitive) return { sensitive: encodeValue(v.value) };
  if (v instanceof PSymbol) return { sym: v.name };
  return { other: String(v) };
}

function environmentOf(name: string): PuppetEnvironment {
  const dir = join(fixtureDir, "code/environments", name);
  const modDir = join(dir, "modules");
  const modules = new Map<string, PuppetModule>();
  let names: string[] = [];
  try {
    names = readdirSync(modDir).sort();
  } catch {}
  for (const m of names) modules.set(m, { name: m, dir: join(modDir, m) });
  return { name, dir, manifests: [], modulePath: [modDir], modules };
}

const BLOCK: (n: PValue) => PCallable = () => ({
  kind: "callable",
  minArgs: 1,
  maxArgs: 1,
  call: (args) => ["block", args[0]],
});

function runSetup(setup: Setup, recorded: Recorded): Outcome[] {
  const warnings: string[] = [];
  const hiera = openHiera({
    environment: environmentOf(setup.env),
    hieraConfig: join(fixtureDir, setup.global),
    codedir: join(fixtureDir, "code"),
    warn: (m) => warnings.push(`warning: ${m}`),
  });
  // record.rb set the setup's variables with @FIXTURE@ standing for the fixture's path.
  const scope = decodeValue(
    JSON.parse(JSON.stringify(recorded.scope).replaceAll("@FIXTURE@", fixtureDir)) as Json,
  ) as PHash;
  const functions = hieraFunctions(hiera);
  const once = new Set<string>();
  const ctx: CallContext = {
    name: "lookup",
    lookupVariable: (n) => scope.get(n.replace(/^::/, "")),
    warn: (m) => warnings.push(`warning: ${m}`),
    warnOnce: (key, m) => {
      if (once.has(key)) return;
      once.add(key);
      warnings.push(`warning: ${m}`);
    },
    callFunction: () => {
      throw new Error("no functions here");
    },
  };
  return setup.cases.map((c, i) => {
    const rec = recorded.results[i];
    if (!rec) throw new Error(`no recorded result for ${setup.id} #${i}`);
    warnings.length = 0;
    let actual: Json;
    try {
      const fn = functions.get(c.fn ?? "lookup");
      if (!fn) throw new Error(`no function ${c.fn}`);
      actual = { value: encodeValue(fn(ctx, c.a.map(decodeArg), c.block ? BLOCK(undefined) : undefined)) };
    } catch (e) {
      actual = { error: (e as Error).message.replaceAll(fixtureDir, "@FIXTURE@") };
    }
    const ws = warnings.map((w) => w.replaceAll(fixtureDir, "@FIXTURE@"));
    if (ws.length > 0) (actual as { warnings?: string[] }).warnings = ws;
    const expected: Record<string, Json> = "error" in rec ? { error: rec.error } : { value: rec.value };
    // The hiera_* functions' deprecation says, as Puppet's, that it has no file and line.
    const expectedWarnings = (rec.warnings ?? []).filter((w) => !w.startsWith("warning: Undefined variable"));
    if (expectedWarnings.length > 0) expected.warnings = expectedWarnings;
    return { setup: setup.id, code: rec.code, expected, actual };
  });
}

/** Every recorded lookup replayed: the expected and the actual answer of each. */
export function replayAll(): Outcome[] {
  const cases = JSON.parse(readFileSync(join(fixtureDir, "cases.json"), "utf8")) as { setups: Setup[] };
  const recorded = JSON.parse(readFileSync(join(fixtureDir, "expected.json"), "utf8")) as Recorded[];
  return cases.setups.flatMap((s, i) => {
    const rec = recorded[i];
    if (!rec || rec.id !== s.id) throw new Error(`expected.json does not match cases.json at ${s.id}`);
    return runSetup(s, rec);
  });
}
