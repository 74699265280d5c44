/**
 * tend's own settings, given in policy in a way cf-agent ignores:
 * variables of a common bundle named `tend_control` (cf-agent sees plain
 * variables; 3.21 refuses unknown attributes where they would otherwise
 * go).
 *
 *     bundle common tend_control
 *     {
 *       vars:
 *           "module_timeout" string => "60";        # promise modules, seconds
 *           "function_timeout" string => "120";     # programs functions run, seconds
 *     }
 */
import type { EvalContext } from "./context.js";
import { isScalar } from "./values.js";

/** The settings bundle. */
export const SETTINGS_BUNDLE = "tend_control";

export interface TimeoutSetting {
  readonly seconds: number;
  /** A value that is not a positive number of seconds (then the default applies), as `name = 'text'`. */
  readonly invalid?: string;
}

/**
 * `tend_control.NAME[index]` as a number of seconds: undefined when
 * unset, `fallback` with `invalid` set when it is not a positive number.
 */
export function secondsSetting(
  ctx: EvalContext,
  name: string,
  fallback: number,
  index?: string,
): TimeoutSetting | undefined {
  const indices = index === undefined ? [] : [index];
  const value = ctx.getVariable({ ns: "default", scope: SETTINGS_BUNDLE, name, indices });
  if (!value) return undefined;
  const text = isScalar(value) ? value.value.trim() : "";
  const seconds = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (seconds > 0) return { seconds };
  const shown = `${SETTINGS_BUNDLE}.${name}${index === undefined ? "" : `[${index}]`}`;
  return { seconds: fallback, invalid: `${shown} = '${text}'` };
}
