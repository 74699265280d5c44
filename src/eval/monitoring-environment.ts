/**
 * What cf-monitord leaves for the agents in `$(sys.statedir)/env_data`,
 * read as 3.21's Get3Environment reads it when an agent starts: each line
 * `name=value` is the variable `mon.name`, `@name={...}` the list
 * `mon.name`, and any other line a hard class (`loadavg_high`,
 * `users_high_normal`...); `mon.env_time` is when the file was written.
 * A file older than an hour is ignored (3.21 also deletes it; tend leaves
 * it to cf-monitord). The slowly varying observations 3.21 reads from
 * cf-monitord's LMDB database are not read.
 */
import { readFileSync, statSync } from "node:fs";
import { posix } from "node:path";
import type { EvalContext } from "./context.js";
import { list, scalar } from "./values.js";

const MAX_AGE_MS = 60 * 60 * 1000;
const TAGS = ["monitoring", "source=environment"];

/** Loads `statedir/env_data` into the context, if cf-monitord wrote it within the hour. */
export function installMonitoringEnvironment(ctx: EvalContext, statedir: string, now: Date): void {
  const file = posix.join(statedir, "env_data");
  let text: string;
  let written: Date;
  try {
    written = statSync(file).mtime;
    if (written.getTime() < now.getTime() - MAX_AGE_MS) return;
    text = readFileSync(file, "latin1");
  } catch {
    return;
  }
  const mon = (name: string) => ({ ns: null, scope: "mon", name, indices: [] });
  ctx.setVariable(mon("env_time"), scalar(ctimeOf(written)), { tags: ["time_based", "source=agent"] });
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const list = /^@([^=]{1,255})=(.*)$/.exec(line);
    const pair = /^([^=]{1,255})=(.+)$/.exec(line);
    if (list) ctx.setVariable(mon(list[1]), parseShownList(list[2]), { tags: TAGS });
    else if (line.startsWith("@")) continue;
    else if (pair) ctx.setVariable(mon(pair[1]), scalar(pair[2]), { tags: TAGS });
    else if (!line.includes("=")) ctx.defineHardClass(line.trim(), TAGS);
  }
}

/** `{"a","b"}` (or `{'a','b'}`) as cf-monitord writes a list. */
function parseShownList(text: string) {
  const items: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) items.push(m[1] ?? m[2] ?? "");
  return list(items);
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** C's ctime() without its newline, in local time: `Thu Nov 26 22:24:18 2026`. */
function ctimeOf(date: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  const day = String(date.getDate()).padStart(2, " ");
  const time = `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
  return `${DAYS[date.getDay()]} ${MONTHS[date.getMonth()]} ${day} ${time} ${date.getFullYear()}`;
}
