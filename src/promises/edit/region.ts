/**
 * `select_region`: the part of the file an edit promise works in, from
 * the first line fully matching `select_start` to the next fully matching
 * `select_end` (or the end of the file). As in cf-agent the region's
 * `begin` is the start delimiter line itself and `end` the end delimiter
 * line (null: the region runs to the end of the file); each promise type
 * decides whether the delimiters take part (`include_start_delimiter`,
 * `include_end_delimiter`).
 */
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { asBoolean, asText } from "../values.js";
import type { Line } from "./lines.js";
import { fullTextMatch } from "./match.js";

export interface RegionSpec {
  readonly start: string | undefined;
  readonly end: string | undefined;
  readonly includeStart: boolean;
  readonly includeEnd: boolean;
  /** Whether a missing end delimiter lets the region run to the end of the file. */
  readonly endMatchesEof: boolean;
}

/** The promise's `select_region` body, or undefined without one. */
export function regionOf(promise: ActivePromise, env: PromiseEnvironment): RegionSpec | undefined {
  if (!promise.body("select_region")) return undefined;
  const value = (name: string) => promise.bodyValue("select_region", name);
  const eof = asText(value("select_end_match_eof"));
  return {
    start: asText(value("select_start")),
    end: asText(value("select_end")),
    includeStart: asBoolean(value("include_start_delimiter"), false),
    includeEnd: asBoolean(value("include_end_delimiter"), false),
    endMatchesEof: eof !== undefined ? eof === "true" : defaultEndMatchesEof(env),
  };
}

/** `select_end_match_eof` of `body agent control` (false by default). */
function defaultEndMatchesEof(env: PromiseEnvironment): boolean {
  return asBoolean(env.controlValue?.("agent", "select_end_match_eof"), false);
}

export interface Region {
  readonly begin: Line | null;
  readonly end: Line | null;
}

/**
 * Finds the region from `first` (the file's first line); undefined when
 * the start delimiter is not found (or, excluded, is the last line).
 */
export function selectRegion(
  env: PromiseEnvironment,
  first: Line | null,
  spec: RegionSpec,
  filename: string,
): Region | undefined {
  let begin: Line | null = null;
  let end: Line | null = null;
  for (let line = first; line; line = line.next) {
    if (spec.start !== undefined && !begin && fullTextMatch(env, spec.start, line.text)) {
      if (!spec.includeStart && !line.next) {
        env.log.verbose(
          `The promised start pattern '${spec.start}' found an empty region at the end of file '${filename}'`,
        );
        return undefined;
      }
      begin = line;
      continue;
    }
    if (spec.end !== undefined && begin && fullTextMatch(env, spec.end, line.text)) {
      end = line;
      break;
    }
  }
  if (!begin && spec.start !== undefined) {
    env.log.verbose(
      `The promised start pattern '${spec.start}' was not found when selecting edit region in '${filename}'`,
    );
    return undefined;
  }
  return { begin, end };
}
