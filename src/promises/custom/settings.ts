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
import { secondsSetting, type TimeoutSetting } from "../../eval/tend-settings.js";

/** The time limit when the policy sets none. */
const DEFAULT_MODULE_TIMEOUT_SECONDS = 300;

/** `tend_control.module_timeout[TYPE]`, else `tend_control.module_timeout`, else the default. */
export function moduleTimeout(ctx: EvalContext, type: string): TimeoutSetting {
  return (
    secondsSetting(ctx, "module_timeout", DEFAULT_MODULE_TIMEOUT_SECONDS, type) ??
    secondsSetting(ctx, "module_timeout", DEFAULT_MODULE_TIMEOUT_SECONDS) ?? {
      seconds: DEFAULT_MODULE_TIMEOUT_SECONDS,
    }
  );
}
