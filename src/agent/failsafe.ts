/**
 * The failsafe policy: what the agent runs instead of a policy that is
 * missing or invalid, when nobody is watching (no terminal), as cf-agent
 * runs `$(sys.inputdir)/failsafe.cf`.
 *
 * A `failsafe.cf` already in the input directory is used as it is. When
 * there is none, tend writes its own built-in one there first. cf-agent's
 * built-in failsafe fetches policy from a policy server and starts daemons;
 * tend has neither, so its failsafe only says what happened and changes
 * nothing on the machine.
 */
import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically } from "../system/atomic.js";
import { errorText } from "../promises/files/step.js";
import type { Logger } from "../system/logger.js";
import { makeDirectoriesSync } from "../system/make-directories.js";

/** tend's built-in failsafe policy (written to `failsafe.cf` when missing). */
export const BUILTIN_FAILSAFE_POLICY = `# tend's built-in failsafe policy.
#
# tend runs this file instead of a policy that could not be loaded or
# validated, when it runs without a terminal (as cf-agent runs failsafe.cf).
# It changes nothing: it says that the failsafe ran and what to do, so that
# whoever reads the agent's output knows the real policy must be fixed.
# Replace it with your own failsafe.cf to do more (tend keeps a file that
# exists).
#
# As cf-agent's own failsafe, it stops the run (exit code 6) when the host
# has no key pair in $(sys.workdir)/ppkeys, so that a scheduler sees the
# same exit code from either agent.

body agent control
{
      abortclasses => { "no_ppkeys_ABORT_kept" };
}

bundle agent main
{
  classes:
      "have_ppkeys" expression => fileexists("$(sys.workdir)/ppkeys/localhost.pub");

  reports:
      "tend ran its failsafe policy because the policy could not be loaded (see the errors above); nothing was changed. Run 'tend check' on the policy, fix what it reports, and run 'tend agent' again."
        classes => tend_failsafe_defines("tend_failsafe_reported");
    !have_ppkeys.tend_failsafe_reported::
      "Stopping the failsafe run: no key pair in $(sys.workdir)/ppkeys (exit code 6, as cf-agent's failsafe)."
        classes => tend_failsafe_defines("no_ppkeys_ABORT_kept");
}

body classes tend_failsafe_defines(class)
{
      promise_kept => { "$(class)" };
      promise_repaired => { "$(class)" };
}
`;

/**
 * The path of the failsafe policy in `inputdir`, written first from the
 * built-in one when no readable file is there. Undefined (after logging why)
 * when it cannot be written.
 */
export function ensureFailsafePolicy(inputdir: string, log: Logger): string | undefined {
  const path = join(inputdir, "failsafe.cf");
  try {
    accessSync(path, constants.R_OK);
    return path;
  } catch {
    // Missing or unreadable: write the built-in one.
  }
  log.info(`Writing built-in failsafe policy to '${path}'`);
  try {
    // cf-agent makes its input directory at startup; tend only when it needs it.
    makeDirectoriesSync(inputdir, 0o700);
    writeFileAtomically(path, BUILTIN_FAILSAFE_POLICY, 0o600);
    return path;
  } catch (error) {
    log.error(`Unable to write failsafe to '${path}' (fopen: ${errorText(error)})`);
    return undefined;
  }
}
