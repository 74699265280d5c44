/**
 * stdlib's serialisers and parsers: to_json (Ruby's JSON generator),
 * to_json_pretty, to_yaml (Psych's output as src/puppet/yaml.ts writes it),
 * to_python, to_ruby, to_toml, parsejson, parseyaml, loadjson, loadyaml.
 */
import { existsSync, readFileSync } from "node:fs";
import { floatToS, inspectString } from "../../../erb/ruby-values.js";
import { loadPsych } from "../../../hiera/psych.js";
import { parseJson } from "../../../hiera/data.js";
import { dumpYaml, type YamlValue } from "../../../yaml.js";
import { type CallContext, FunctionError, type PuppetFunction } from "../registry.js";
import { DEFAULT, PHash, PRegexp, type PValue } from "../../values.js";
import { dispatcher, opt, p } from "../core/dispatch.js";
import { T } from "../core/spec.js";
import { fail, legacy, rubyToS } from "./support.js";

/** Ruby's JSON string: `"`, `\\` and control characters escaped, the rest as is. */
function jsonString(s: string): string {
  return JSON.stringify(s);
}

function jsonScalar(v: PValue): string {
  if (v === undefined) return "null";
  if (typeof v === "boolean") return String(v);
  if (typeof v === "bigint") return String(v);
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new FunctionError(`${floatToS(v)} not allowed in JSON`);
    return floatToS(v);
  }
  if (typeof v === "string") return jsonString(v);
  if (v === DEFAULT) return '"default"';
  if (v instanceof PRegexp) return jsonString(`(?-mix:${v.source})`);
  return jsonString(rubyToS(v));
}

interface JsonLayout {
  indent: string;
  space: string;
  spaceBefore: string;
  objectNl: string;
  arrayNl: string;
}

const COMPACT: JsonLayout = { indent: "", space: "", spaceBefore: "", objectNl: "", arrayNl: "" };
const PRETTY: JsonLayout = { indent: "  ", space: " ", spaceBefore: "", objectNl: "\n", arrayNl: "\n" };

/** Ruby's JSON generator with its layout options. */
export function generateJson(v: PValue, layout: JsonLayout = COMPACT, depth = 0): string {
  const pad = (d: number): string => layout.indent.repeat(d);
  if (Array.isArray(v)) {
    if (v.length === 0) return `[${layout.arrayNl}${layout.arrayNl}${pad(depth)}]`;
    const items = v.map((x) => pad(depth + 1) + generateJson(x, layout, depth + 1));
    return `[${layout.arrayNl}${items.join(`,${layout.arrayNl}`)}${layout.arrayNl}${pad(depth)}]`;
  }
  if (v instanceof PHash) {
    if (v.size === 0) return `{${layout.objectNl}${pad(depth)}}`;
    const items = [...v].map(
      ([k, x]) =>
        `${pad(depth + 1)}${jsonString(typeof k === "string" ? k : rubyToS(k))}${layout.spaceBefore}:${layout.space}${generateJson(x, layout, depth + 1)}`,
    );
    return `{${layout.objectNl}${items.join(`,${layout.objectNl}`)}${layout.objectNl}${pad(depth)}}`;
  }
  return jsonScalar(v);
}

export const to_json: PuppetFunction = (_ctx, args) => {
  if (args.length !== 1) fail(`'stdlib::to_json' expects 1 argument, got ${args.length}`);
  return generateJson(args[0]);
};

export const to_json_pretty: PuppetFunction = (ctx, args, block) => prettyDispatch(ctx, args, block);

function prettyJson(args: readonly PValue[]): PValue {
  let data = args[0];
  const skipUndef = args[1] === true;
  const opts = args[2];
  if (skipUndef) {
    if (Array.isArray(data)) data = data.filter((x) => x !== undefined);
    else if (data instanceof PHash) data = PHash.from([...data].filter(([, x]) => x !== undefined));
  }
  const layout = { ...PRETTY };
  if (opts instanceof PHash) {
    const str = (k: string): string | undefined => {
      const x = opts.get(k);
      return typeof x === "string" ? x : undefined;
    };
    layout.indent = str("indent") ?? layout.indent;
    layout.space = str("space") ?? layout.space;
    layout.spaceBefore = str("space_before") ?? layout.spaceBefore;
    layout.objectNl = str("object_nl") ?? layout.objectNl;
    layout.arrayNl = str("array_nl") ?? layout.arrayNl;
  }
  return `${generateJson(data, layout)}\n`;
}

const prettyDispatch = dispatcher("stdlib::to_json_pretty", [
  {
    params: [
      p("data", T.variant(T.hash, T.array)),
      opt("skip_undef", T.optional(T.boolean)),
      opt("opts", T.optional(T.hash)),
    ],
    call: (_c, args) => prettyJson(args),
  },
]);

/** Puppet data as the YAML writer takes it (keys as text). */
function toYamlValue(v: PValue): YamlValue {
  if (v === undefined) return null;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(toYamlValue);
  if (v instanceof PHash) {
    const o: Record<string, YamlValue> = {};
    for (const [k, x] of v) o[typeof k === "string" ? k : rubyToS(k)] = toYamlValue(x);
    return o;
  }
  if (v === DEFAULT) return ":default";
  return rubyToS(v);
}

export const to_yaml: PuppetFunction = (_ctx, args) => {
  const v = args[0];
  // Psych writes an empty document, `{}` and `[]` on the document line.
  if (v === undefined) return "---\n";
  if (v instanceof PHash && v.size === 0) return "--- {}\n";
  if (Array.isArray(v) && v.length === 0) return "--- []\n";
  return dumpYaml(toYamlValue(v));
};

/** Puppet's rich-data serialisation of `default` and other non-data values, as to_python/to_ruby see them. */
function serialized(v: PValue): PValue {
  if (v === DEFAULT) return PHash.fromRecord({ __ptype: "Default" });
  if (Array.isArray(v)) return v.map(serialized);
  if (v instanceof PHash) return PHash.from([...v].map(([k, x]) => [serialized(k), serialized(x)] as const));
  return v;
}

function rubyInspectData(v: PValue): string {
  if (v === undefined) return "nil";
  if (typeof v === "string") return inspectString(v);
  if (typeof v === "number") return floatToS(v);
  return rubyToS(v);
}

function toPython(v: PValue): string {
  if (v === true) return "True";
  if (v === false) return "False";
  if (v === undefined) return "None";
  if (Array.isArray(v)) return `[${v.map(toPython).join(", ")}]`;
  if (v instanceof PHash) return `{${[...v].map(([k, x]) => `${toPython(k)}: ${toPython(x)}`).join(", ")}}`;
  return rubyInspectData(v);
}

function toRuby(v: PValue): string {
  if (Array.isArray(v)) return `[${v.map(toRuby).join(", ")}]`;
  if (v instanceof PHash) return `{${[...v].map(([k, x]) => `${toRuby(k)} => ${toRuby(x)}`).join(", ")}}`;
  return rubyInspectData(v);
}

export const to_python: PuppetFunction = (_ctx, args) => toPython(serialized(args[0]));
export const to_ruby: PuppetFunction = (_ctx, args) => toRuby(serialized(args[0]));

/** stdlib's TOML writer: simple keys, then tables, then arrays of tables, keys sorted. */
export const to_toml: PuppetFunction = (_ctx, args) => {
  const h = args[0];
  if (!(h instanceof PHash)) fail(`'stdlib::to_toml' parameter 'data' expects a Hash value`);
  let out = "";
  const bare = (k: string): string => (/^[a-zA-Z0-9_-]*$/.test(k) ? k : `"${k.replace(/"/g, '\\"')}"`);
  const scalar = (v: PValue): string => {
    if (typeof v === "string") return inspectString(v).replace(/\\(#[$@{])/g, "$1");
    if (Array.isArray(v)) return `[${v.map(scalar).join(", ")}]`;
    return rubyInspectData(v);
  };
  const visit = (hash: PHash, prefix: string[], brackets: boolean): void => {
    const keys = [...hash.keys()].map((k) => rubyToS(k)).sort();
    const simple = keys.filter((k) => !(hash.get(k) instanceof PHash) && !isTableArray(hash.get(k)));
    const nested = keys.filter((k) => hash.get(k) instanceof PHash);
    const tables = keys.filter((k) => isTableArray(hash.get(k)));
    if (prefix.length > 0 && (simple.length > 0 || hash.size === 0))
      out += `[${brackets ? `[${prefix.join(".")}]` : prefix.join(".")}]\n`;
    for (const k of simple) out += `${bare(k)} = ${scalar(hash.get(k))}\n`;
    for (const k of nested) visit(hash.get(k) as PHash, [...prefix, bare(k)], false);
    for (const k of tables) {
      for (const child of hash.get(k) as PHash[]) {
        out += `[[${[...prefix, bare(k)].join(".")}]]\n`;
        visit(child, [...prefix, bare(k)], true);
      }
    }
  };
  visit(h, [], false);
  return out;
};

function isTableArray(v: PValue): boolean {
  return Array.isArray(v) && v[0] instanceof PHash;
}

/** `parsed || default`: Ruby's falsy nil and false give the default. */
function orDefault(v: PValue, dflt: PValue): PValue {
  return v === undefined || v === false ? dflt : v;
}

/** A 3.x parser: a failure gives the default when one is given (undef arrives as ''), else fails. */
function parser(parse: (s: string) => PValue): PuppetFunction {
  return legacy((_ctx, args) => {
    if (args.length < 1) fail("Wrong number of arguments. 1 or 2 arguments should be provided.");
    const [text, dflt] = args;
    try {
      return orDefault(parse(rubyToS(text)), dflt);
    } catch (e) {
      if (args.length < 2 || dflt === false) throw new FunctionError((e as Error).message);
      return dflt;
    }
  });
}

export const parsejson = parser((s) => parseJson(s));
export const parseyaml = parser((s) => loadPsych(s));

function loader(parse: (s: string) => PValue): PuppetFunction {
  return legacy((ctx: CallContext, args) => {
    if (args.length < 1)
      throw new FunctionError("Wrong number of arguments. 1 or 2 arguments should be provided.");
    const [path, dflt] = args;
    const p = rubyToS(path);
    if (/^https?:\/\//.test(p)) throw new FunctionError(`tend does not load data over the network: '${p}'`);
    if (!existsSync(p)) {
      ctx.warn(`Can't load '${p}' File does not exist!`);
      return dflt;
    }
    try {
      return orDefault(parse(readFileSync(p, "utf8")), dflt);
    } catch (e) {
      if (args.length < 2 || dflt === false) throw new FunctionError((e as Error).message);
      return dflt;
    }
  });
}

export const loadjson = loader((s) => parseJson(s));
export const loadyaml = loader((s) => loadPsych(s));
