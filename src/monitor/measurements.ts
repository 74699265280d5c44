/**
 * `measurements` promises of monitor (and common) bundles, as cf-monitord
 * 3.21 keeps them on each sample (cf-monitord/history.c): the promiser is a
 * file (`stream_type => "file"`) or a command (`"pipe"`) read line by line;
 * `match_value` picks lines (`select_line_matching`, a full-match regex, or
 * `select_line_number`) and `extraction_regex` its first group;
 * `track_growing_file` reads a file from where the last sample stopped.
 *
 * - numbers (`counter`, `int`, `real`) with `history_type => "weekly"` take
 *   an observable slot after the built-in ones and get the full weekly
 *   statistics and classes;
 * - numbers kept `scalar`/`static` are averaged sample to sample with weight
 *   0.7 on the new value and published as `value_/av_/dev_<handle>`;
 * - strings and lists (and any `log` history) are the last match: `log`
 *   appends `ctime,epoch,value` to `state/<handle>_measure.log`; otherwise
 *   the value is published as `<handle>=<value>` in env_data, which the
 *   agents read as `mon.<handle>` (3.21 keeps it in its nova_static LMDB
 *   database, which cf-agent reads into the same variable).
 *
 * Scalar statistics and file positions are stored in
 * `state/tend-monitor/measures.json`, written to a temporary file and renamed.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Bundle } from "../language/ast.js";
import type { EvalContext } from "../eval/context.js";
import { expandRval, expandString } from "../eval/expand.js";
import { collectIterationTexts, iterate } from "../eval/iteration.js";
import { bundleThisVars, isGuardTrue, isPromiseEnabled } from "../eval/resolve.js";
import { isScalar, type Value } from "../eval/values.js";
import { resolveBody } from "../promises/bodies.js";
import type { PolicyIndex } from "../promises/policy-index.js";
import { writeFileAtomically } from "../system/atomic.js";
import type { Logger } from "../system/logger.js";

export type DataType = "counter" | "int" | "real" | "string" | "slist";
export type HistoryType = "weekly" | "scalar" | "static" | "log";

export interface Measurement {
  readonly handle: string;
  readonly promiser: string;
  readonly streamType: "file" | "pipe";
  readonly dataType: DataType;
  readonly historyType: HistoryType;
  readonly units?: string;
  readonly selectLineMatching?: string;
  readonly selectLineNumber?: number;
  readonly extractionRegex?: string;
  readonly trackGrowingFile: boolean;
  readonly multilinePolicy: "average" | "sum" | "first" | "last";
}

export interface BundleSource {
  readonly bundle: Bundle;
  readonly path: string;
}

/** The measurements promises of the monitor and common bundles, expanded now. */
export function collectMeasurements(
  ctx: EvalContext,
  bundles: readonly BundleSource[],
  index: PolicyIndex,
  log: Logger,
  /** Runs in each bundle's frame before its measurements: its vars and classes. */
  prepare?: (source: BundleSource) => void,
): Measurement[] {
  const out: Measurement[] = [];
  for (const source of bundles) {
    const { bundle, path } = source;
    const type = bundle.type.text;
    if (type !== "monitor" && type !== "common") continue;
    if ((bundle.params?.length ?? 0) > 0) continue;
    ctx.pushFrame(bundle.namespace, bundle.name.text, bundleThisVars(path));
    try {
      prepare?.(source);
      for (const section of bundle.sections) {
        if (section.type.text !== "measurements") continue;
        for (const group of section.groups) {
          if (!isGuardTrue(ctx, group.guard)) continue;
          for (const promise of group.promises) {
            const texts = [promise.promiser.value];
            for (const attribute of promise.attributes) collectIterationTexts(attribute.value, texts);
            for (const bindings of iterate(ctx, texts)) {
              const options = { bindings };
              if (!isPromiseEnabled(ctx, promise, options)) continue;
              const attrs = new Map<string, Value | undefined>();
              for (const attribute of promise.attributes) {
                const name = attribute.name.text;
                const body =
                  name === "match_value"
                    ? resolveBody(ctx, index, name, attribute.value, (m) => log.error(m))
                    : undefined;
                if (body)
                  for (const [inner, value] of body.attributes)
                    attrs.set(inner, expandRval(ctx, value.value, options));
                else attrs.set(name, expandRval(ctx, attribute.value, options));
              }
              const m = toMeasurement(expandString(ctx, promise.promiser.value, options), attrs, log);
              if (m) out.push(m);
            }
          }
        }
      }
    } finally {
      ctx.popFrame();
    }
  }
  return out;
}

function toMeasurement(
  promiser: string,
  attrs: Map<string, Value | undefined>,
  log: Logger,
): Measurement | undefined {
  const text = (name: string): string | undefined => {
    const v = attrs.get(name);
    return v && isScalar(v) ? v.value : undefined;
  };
  const handle = text("handle");
  if (!handle) {
    log.error("The promised measurement has no handle to register it by.");
    return undefined;
  }
  if (!isAbsolute(promiser)) {
    log.error(`The promiser '${promiser}' of a measurement was not an absolute path`);
    return undefined;
  }
  const dataType = text("data_type") as DataType | undefined;
  if (!dataType || !["counter", "int", "real", "string", "slist"].includes(dataType)) {
    log.error(`The promiser '${promiser}' did not specify a data type`);
    return undefined;
  }
  const historyType = (text("history_type") ?? "scalar") as HistoryType;
  if (historyType === "weekly" && dataType === "slist") {
    log.error(`The promiser '${promiser}' cannot have history type weekly as it is not a number`);
    return undefined;
  }
  const lineNumber = text("select_line_number");
  const matching = text("select_line_matching");
  if (matching !== undefined && lineNumber !== undefined) {
    log.error(`The promiser '${promiser}' cannot select both a line by pattern and by number`);
    return undefined;
  }
  const extraction = text("extraction_regex");
  if (extraction !== undefined && !extraction.includes("(") && !extraction.includes(")")) {
    log.error("The extraction_regex must contain a single backreference for the extraction");
    return undefined;
  }
  const policy = text("select_multiline_policy");
  return {
    handle,
    promiser,
    streamType: text("stream_type") === "pipe" ? "pipe" : "file",
    dataType,
    historyType,
    units: text("units"),
    selectLineMatching: matching,
    selectLineNumber: lineNumber === undefined ? undefined : Number(lineNumber),
    extractionRegex: extraction,
    trackGrowingFile: ["true", "yes", "on"].includes((text("track_growing_file") ?? "").toLowerCase()),
    multilinePolicy: policy === "sum" || policy === "first" || policy === "last" ? policy : "average",
  };
}

interface Stored {
  events: Record<string, { q: number; expect: number; var: number; t: number }>;
  positions: Record<string, number>;
  statics: Record<string, string>;
}

function fullMatch(pattern: string, text: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`).test(text);
  } catch {
    return false;
  }
}

function firstGroup(pattern: string, text: string): string | undefined {
  try {
    const m = new RegExp(pattern).exec(text);
    return m?.[1];
  } catch {
    return undefined;
  }
}

/** Keeps the measurements from sample to sample. */
export class MeasurementKeeper {
  private readonly file: string;
  private stored: Stored;

  constructor(
    private readonly statedir: string,
    private readonly log: Logger,
  ) {
    this.file = join(statedir, "tend-monitor", "measures.json");
    this.stored = { events: {}, positions: {}, statics: {} };
    try {
      const parsed = JSON.parse(readFileSync(this.file, "utf8")) as Partial<Stored>;
      this.stored = {
        events: parsed.events ?? {},
        positions: parsed.positions ?? {},
        statics: parsed.statics ?? {},
      };
    } catch {
      // a missing or unreadable file: nothing measured yet
    }
  }

  private stream(m: Measurement): string[] | undefined {
    if (m.streamType === "pipe") {
      const argv = m.promiser.split(/\s+/).filter((a) => a !== "");
      const run = spawnSync(argv[0] as string, argv.slice(1), { encoding: "latin1", timeout: 60_000 });
      if (run.error) {
        this.log.error(`Couldn't open pipe to command '${m.promiser}'. (cf_popen: ${run.error.message})`);
        return undefined;
      }
      return lines(run.stdout);
    }
    let fd: number;
    try {
      fd = openSync(m.promiser, "r");
    } catch (error) {
      this.log.info(`Unable to find stream '${m.promiser}'. (stat: ${(error as Error).message})`);
      return undefined;
    }
    try {
      const size = fstatSync(fd).size;
      const key = `${m.handle}_${m.promiser}`;
      let from = m.trackGrowingFile ? (this.stored.positions[key] ?? 0) : 0;
      if (from > size) from = 0;
      const buffer = Buffer.alloc(size - from);
      let got = 0;
      while (got < buffer.length) {
        const n = readSync(fd, buffer, got, buffer.length - got, from + got);
        if (n <= 0) break;
        got += n;
      }
      this.stored.positions[key] = from + got;
      return lines(buffer.subarray(0, got).toString("latin1"));
    } finally {
      closeSync(fd);
    }
  }

  /**
   * A number from the stream, as NovaExtractValueFromStream finds it: lines
   * are counted, summed or averaged only when extraction_regex finds a
   * number in them (so a counter without one counts nothing, as in 3.21);
   * no line found, or a line without the group, is 0.
   */
  private extractNumber(m: Measurement, stream: readonly string[]): number {
    let found = false;
    let ok = true;
    let value = 0;
    let matches = 0;
    for (let i = 0; i < stream.length; i++) {
      const line = stream[i] as string;
      if (m.selectLineNumber === i + 1) {
        found = true;
        matches++;
      }
      if (m.selectLineMatching !== undefined && fullMatch(m.selectLineMatching, line)) {
        found = true;
        if (m.extractionRegex === undefined) continue;
        const text = firstGroup(m.extractionRegex, line);
        if (text === undefined) {
          ok = false;
          continue;
        }
        if (!ok) continue;
        const n = Number(text.trim());
        if (text.trim() === "" || !Number.isFinite(n)) {
          this.log.error(`Error in double conversion from string value: ${text}`);
          return 0;
        }
        value = m.multilinePolicy === "sum" || m.multilinePolicy === "average" ? value + n : n;
        matches++;
        if (m.multilinePolicy === "first") break;
      }
    }
    if (!found || !ok) return 0;
    if (m.dataType === "counter") return matches;
    if (m.dataType === "int" && matches > 0 && m.multilinePolicy === "average") return value / matches;
    if (m.dataType === "real" && matches > 0) return value / matches;
    return value;
  }

  /** The symbolic value (string, list, or a logged number) as NovaLogSymbolicValue finds it. */
  private extractSymbol(m: Measurement, stream: readonly string[]): string | undefined {
    const matched: string[] = [];
    for (let i = 0; i < stream.length; i++) {
      const line = stream[i] as string;
      const pick = () =>
        matched.push(
          m.extractionRegex !== undefined ? (firstGroup(m.extractionRegex, line) ?? "CF_NOMATCH") : line,
        );
      if (m.selectLineNumber === i + 1) {
        matched.length = 0;
        pick();
        break;
      }
      if (m.selectLineMatching !== undefined && fullMatch(m.selectLineMatching, line)) pick();
    }
    if (matched.length === 0) {
      this.log.error(`Promiser '${m.promiser}' found no matching line.`);
      return undefined;
    }
    if (m.dataType === "counter") return String(matched.length);
    if (m.dataType === "slist") return matched.join(",");
    return matched[0];
  }

  /**
   * Takes every measurement: weekly values into `values` (by handle), the
   * rest kept; returns the lines to add to env_data.
   */
  keep(measurements: readonly Measurement[], weekly: Map<string, number>, now: Date): string[] {
    mkdirSync(join(this.statedir, "tend-monitor"), { recursive: true, mode: 0o700 });
    for (const m of measurements) {
      const stream = this.stream(m);
      const numeric = m.dataType === "counter" || m.dataType === "int" || m.dataType === "real";
      if (numeric && m.historyType === "weekly") {
        weekly.set(m.handle, this.extractNumber(m, stream ?? []));
      } else if (numeric && m.historyType !== "log") {
        // As 3.21: a stream that could not be read or matched records 0.
        const value = this.extractNumber(m, stream ?? []);
        const old = this.stored.events[m.handle];
        const t = Math.floor(now.getTime() / 1000);
        if (!old) this.stored.events[m.handle] = { q: value, expect: value, var: 0, t };
        else {
          const expect = 0.7 * value + 0.3 * old.expect;
          const variance = 0.7 * (value - old.expect) ** 2 + 0.3 * old.var;
          this.stored.events[m.handle] = { q: value, expect, var: variance, t };
        }
      } else if (stream) {
        const value = this.extractSymbol(m, stream);
        if (value === undefined) continue;
        if (m.historyType === "log") {
          const epoch = Math.floor(now.getTime() / 1000);
          appendFileSync(
            join(this.statedir, `${m.handle}_measure.log`),
            `${ctime(now)},${epoch},${value}\n`,
            {
              mode: 0o600,
            },
          );
        } else
          this.stored.statics[m.handle] =
            m.dataType === "slist"
              ? `{${value
                  .split(",")
                  .map((v) => `'${v}'`)
                  .join(",")}}`
              : value;
      }
    }
    writeFileAtomically(this.file, `${JSON.stringify(this.stored)}\n`, 0o600);
    const out: string[] = [];
    // In key order, as 3.21 reads them back from its database.
    const byKey = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    for (const [name, e] of Object.entries(this.stored.events).sort(byKey)) {
      const shown = Math.trunc(e.q * 10) % 10 === 0 ? e.q.toFixed(0) : e.q.toFixed(2);
      out.push(
        `value_${name}=${shown}`,
        `av_${name}=${e.expect.toFixed(2)}`,
        `dev_${name}=${Math.sqrt(e.var).toFixed(2)}`,
      );
    }
    for (const [name, value] of Object.entries(this.stored.statics).sort(byKey)) {
      out.push(value.startsWith("{") ? `@${name}=${value}` : `${name}=${value}`);
    }
    return out;
  }
}

function lines(text: string): string[] {
  const out = text.split("\n");
  if (out[out.length - 1] === "") out.pop();
  return out;
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function ctime(date: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  const day = String(date.getDate()).padStart(2, " ");
  return `${DAYS[date.getDay()]} ${MONTHS[date.getMonth()]} ${day} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())} ${date.getFullYear()}`;
}
