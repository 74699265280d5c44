/**
 * The failsafe policy: what the agent runs instead of a policy that is
 * missing or invalid, when nobody is watching (no terminal), as cf-agent
 * runs `$(sys.inputdir)/failsafe.cf`; and what a bootstrap runs
 * (`tend agent -B`, see bootstrap.ts), which writes it afresh first.
 *
 * A `failsafe.cf` already in the input directory is used as it is. When
 * there is none, tend writes its own built-in one there first. On a host
 * that was never bootstrapped it changes nothing and says what to do. On
 * a bootstrapped host it fetches the policy as cf-agent's own failsafe
 * does: the policy server's `masterfiles` (its shortcut; else its
 * `$(sys.masterdir)`) copied into the input directory and `modules` into
 * the work directory's, trusting the server's key on first use during a
 * bootstrap (`trust_server`); a policy server copies its own
 * `$(sys.masterdir)`. Unlike cf-agent's, it starts no daemons.
 */
import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically } from "../system/atomic.js";
import { errorText } from "../promises/files/step.js";
import type { Logger } from "../system/logger.js";
import { makeDirectoriesSync } from "../system/make-directories.js";

/** tend's built-in failsafe policy (written to `failsafe.cf` when missing, and at each bootstrap). */
export const BUILTIN_FAILSAFE_POLICY = `# tend's built-in failsafe policy.
#
# tend runs this file instead of a policy that could not be loaded or
# validated, when it runs without a terminal (as cf-agent runs failsafe.cf),
# and when it bootstraps to a policy server (tend agent -B HOST), which
# writes it anew. On a host that was never bootstrapped it changes nothing:
# it says that the failsafe ran and what to do, so that whoever reads the
# agent's output knows the real policy must be fixed. On a bootstrapped
# host it fetches the policy from the policy server into the input
# directory. Replace it with your own failsafe.cf to do more (tend keeps a
# file that exists, except when it bootstraps).
#
# As cf-agent's own failsafe, it stops the run (exit code 6) when the host
# has no key pair in $(sys.workdir)/ppkeys, so that a scheduler sees the
# same exit code from either agent.

body agent control
{
      abortclasses => { "no_ppkeys_ABORT_kept" };
      ifelapsed => "0";
}

bundle agent main
{
  classes:
      "have_ppkeys" expression => fileexists("$(sys.workdir)/ppkeys/localhost.pub");
      "tend_bootstrapped" expression => fileexists("$(sys.workdir)/policy_server.dat");

  methods:
    have_ppkeys.tend_bootstrapped::
      "fetch the policy" usebundle => tend_failsafe_fetch;
      "say how it went" usebundle => tend_failsafe_outcome;

  reports:
    !bootstrap_mode::
      "tend ran its failsafe policy because the policy could not be loaded (see the errors above); nothing was changed. Run 'tend check' on the policy, fix what it reports, and run 'tend agent' again."
        classes => tend_failsafe_defines("tend_failsafe_reported");
    !have_ppkeys.(tend_failsafe_reported|bootstrap_mode)::
      "Stopping the failsafe run: no key pair in $(sys.workdir)/ppkeys (exit code 6, as cf-agent's failsafe)."
        classes => tend_failsafe_defines("no_ppkeys_ABORT_kept");
}

bundle agent tend_failsafe_fetch
{
  vars:
      # A policy server copies its own masterfiles; a client asks the
      # server's "masterfiles" shortcut, so the server decides what to serve.
      "source" string => ifelse("policy_server", "$(sys.masterdir)", "masterfiles");

  files:
      "$(sys.inputdir)"
        copy_from => tend_failsafe_copy("$(source)"),
        depth_search => tend_failsafe_tree,
        file_select => tend_failsafe_no_vcs,
        classes => tend_failsafe_results("tend_failsafe_inputs");

    !policy_server::
      "$(sys.workdir)/modules"
        copy_from => tend_failsafe_copy("modules"),
        depth_search => tend_failsafe_tree,
        file_select => tend_failsafe_no_vcs,
        classes => tend_failsafe_results("tend_failsafe_modules");

    tend_failsafe_inputs_failed.!policy_server::
      # A server without the shortcut: its masterfiles where this host keeps its own.
      "$(sys.inputdir)"
        copy_from => tend_failsafe_copy("$(sys.masterdir)"),
        depth_search => tend_failsafe_tree,
        file_select => tend_failsafe_no_vcs,
        classes => tend_failsafe_results("tend_failsafe_inputs");
}

bundle agent tend_failsafe_outcome
{
  classes:
      "have_promises_cf" expression => fileexists("$(sys.inputdir)/promises.cf");

  reports:
    bootstrap_mode::
      "Bootstrapping from host '$(sys.policy_hub)' with tend's built-in failsafe policy '$(this.promise_filename)'";
    bootstrap_mode.policy_server::
      "This host is the policy server: its policy comes from $(sys.masterdir)";
    bootstrap_mode.!policy_server::
      "This host is a client of the policy server $(sys.policy_hub)";
    tend_failsafe_inputs_repaired::
      "Updated local policy from policy server";
    !have_promises_cf::
      "Failed to copy the policy from the policy server $(sys.policy_hub) (port $(sys.policy_hub_port)): check that its server runs, that its body server control lets this host connect (allowconnects, trustkeysfrom) and that its access promises admit this host to masterfiles (see the server's verbose log).";
}

body copy_from tend_failsafe_copy(from)
{
      source => "$(from)";
      compare => "digest";
    trust_server::
      trustkey => "true";
    !policy_server::
      servers => { "$(sys.policy_hub)" };
      portnumber => "$(sys.policy_hub_port)";
}

body depth_search tend_failsafe_tree
{
      depth => "inf";
      exclude_dirs => { "\\.svn", "\\.git", "git-core", "\\.no-distrib" };
}

body file_select tend_failsafe_no_vcs
{
      leaf_name => { "\\.git.*", "\\.mailmap" };
      file_result => "!leaf_name";
}

body classes tend_failsafe_results(prefix)
{
      scope => "namespace";
      promise_kept => { "$(prefix)_reached", "$(prefix)_kept" };
      promise_repaired => { "$(prefix)_reached", "$(prefix)_repaired" };
      repair_failed => { "$(prefix)_reached", "$(prefix)_failed" };
      repair_denied => { "$(prefix)_reached", "$(prefix)_failed" };
      repair_timeout => { "$(prefix)_reached", "$(prefix)_failed" };
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
  return writeFailsafePolicy(inputdir, log);
}

/** Writes the built-in failsafe policy to `inputdir` (over one there); its path, or undefined (logged). */
export function writeFailsafePolicy(inputdir: string, log: Logger): string | undefined {
  const path = join(inputdir, "failsafe.cf");
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
