/**
 * 3.21's "Additional promise info" line: logged at verbose level before a
 * promise's own verbose message about its outcome (handle, version, source
 * file and line, promisee, comment).
 */
import type { LogLevel } from "../system/logger.js";
import { expandRval } from "../eval/expand.js";
import type { ActivePromise, PromiseEnvironment } from "./contract.js";
import { asStrings, asText } from "./values.js";

export function logPromiseContext(promise: ActivePromise, env: PromiseEnvironment): void {
  if (!env.log.wouldLog("verbose")) return;
  let text = "Additional promise info:";
  const handle = promise.text("handle");
  if (handle !== undefined) text += ` handle '${handle}'`;
  const version = asText(env.controlValue?.("common", "version"));
  if (version !== undefined) text += ` version '${version}'`;
  if (promise.line !== undefined) text += ` source path '${promise.bundle.file}' at line ${promise.line}`;
  const promisee = promise.node.promisee;
  if (promisee) {
    const value = expandRval(env.ctx, promisee, promise.options);
    if (promisee.kind === "list")
      text += ` promisee  {${asStrings(value)
        .map((v) => `"${v}"`)
        .join(",")}}`;
    else text += ` promisee '${asText(value) ?? ""}'`;
  }
  const comment = promise.text("comment");
  if (comment !== undefined) text += ` comment '${comment}'`;
  env.log.verbose(text);
}

/** 3.21's PromiseRef: where a promise with a problem is, after the problem's message. */
export function logPromiseRef(promise: ActivePromise, env: PromiseEnvironment, level: LogLevel): void {
  if (!env.log.wouldLog(level)) return;
  const bundle = promise.bundle.block.name.text;
  env.log.log(
    level,
    promise.line !== undefined
      ? `Promise belongs to bundle '${bundle}' in file '${promise.bundle.file}' near line ${promise.line}`
      : `Promise belongs to bundle '${bundle}' near line 0`,
  );
  const comment = promise.text("comment");
  if (comment !== undefined) env.log.log(level, `Comment is '${comment}'`);
  const promisee = promise.node.promisee;
  if (promisee) {
    const value = expandRval(env.ctx, promisee, promise.options);
    if (promisee.kind === "list") {
      const items = asStrings(value).map((v) => `"${v}"`);
      env.log.log(level, `This was a promise to ' {${items.join(",")}}'`);
    } else env.log.log(level, `This was a promise to '${asText(value) ?? ""}'`);
  }
}
