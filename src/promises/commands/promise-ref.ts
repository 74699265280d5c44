/**
 * Where a promise comes from, logged after a problem with it as 3.21's
 * PromiseRef does: its bundle, file and line, its comment and its promisee.
 */
import type { LogLevel } from "../../system/logger.js";
import { expandRval } from "../../eval/expand.js";
import { isList } from "../../eval/values.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { asText } from "../values.js";

export function logPromiseRef(level: LogLevel, promise: ActivePromise, env: PromiseEnvironment): void {
  const line = asText(env.ctx.currentFrame().thisVars.get("promise_linenumber")) ?? "0";
  const bundle = promise.bundle.block.name.text;
  env.log.log(
    level,
    `Promise belongs to bundle '${bundle}' in file '${promise.bundle.file}' near line ${line}`,
  );
  const comment = promise.text("comment");
  if (comment !== undefined) env.log.log(level, `Comment is '${comment}'`);
  const promisee = promise.node.promisee && expandRval(env.ctx, promise.node.promisee, promise.options);
  if (!promisee || promisee.type === "data") return;
  const text = isList(promisee) ? `{${promisee.value.map((item) => `'${item}'`).join(",")}}` : promisee.value;
  env.log.log(level, `This was a promise to '${text}'`);
}
