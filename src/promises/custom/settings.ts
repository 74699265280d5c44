/**
 * tend's own settings for promise modules, given in policy in a way
 * cf-agent ignores (3.21 refuses unknown attributes in `promise agent`
 * blocks and aborts on a list there): variables of a common bundle named
 * `tend_control`.
 *
 *     bundle common tend_control
 *     {
 *       vars:
 *           "module_timeout" string => "60";          # seconds, every promise type
 *           "module_timeout[git]" string => "900";    # seconds, the git promise type
 *     }
 *
 * The time limit applies to every exchange with a module (the header, each
 * validate, evaluate and terminate); a module that exceeds it is killed and
 * the promise is not kept.
 */
import type { EvalContext } from "../../eval/context.js";
import { isScalar } from "../../eval/values.js";

/** The settings bundle. */
export const SETTINGS_BUNDLE = "tend_control";

/** The time limit when the policy sets none. */
export const DEFAULT_MODULE_TIMEOUT_SECONDS = 300;

export interface TimeoutSetting {
  readonly seconds: number;
  /** A value that is not a positive number of seconds (then the default applies). */
  readonly invalid?: string;
}

/** `tend_control.module_timeout[TYPE]`, else `tend_control.module_timeout`, else the default. */
export function moduleTimeout(ctx: EvalContext, type: string): TimeoutSetting {
  for (const indices of [[type], []]) {
    const value = ctx.getVariable({ ns: "default", scope: SETTINGS_BUNDLE, name: "module_timeout", indices });
    if (!value) continue;
    const text = isScalar(value) ? value.value.trim() : "";
    const seconds = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
    if (seconds > 0) return { seconds };
    const name = `${SETTINGS_BUNDLE}.module_timeout${indices.length ? `[${type}]` : ""}`;
    return { seconds: DEFAULT_MODULE_TIMEOUT_SECONDS, invalid: `${name} = '${text}'` };
  }
  return { seconds: DEFAULT_MODULE_TIMEOUT_SECONDS };
}
