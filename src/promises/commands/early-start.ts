/**
 * Starting the command runner while the agent loads: a policy with
 * `commands` promises will likely run one, and the runner's interpreter
 * (tens of milliseconds to start) then boots alongside the agent's own
 * work instead of before the first command.
 */
import type { PolicySet } from "../../language/policy-set.js";
import { startRunnerEarly } from "../../providers/commands/index.js";

/** Whether any bundle of the policy has a `commands` section. */
function hasCommands(set: PolicySet): boolean {
  return set.files.some(({ policy }) =>
    policy.blocks.some(
      (block) =>
        block.kind === "bundle" && block.sections.some((section) => section.type.text === "commands"),
    ),
  );
}

/** Starts the command runner now when the policy has `commands` promises. */
export function startCommandRunnerEarly(set: PolicySet): void {
  if (hasCommands(set)) startRunnerEarly();
}
