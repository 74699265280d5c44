/**
 * What 3.21's child does between fork and exec: chroot (without changing
 * directory), chdir, set the group and the user. When a step fails, that
 * child prints an error line into the command's output and exits 1, and
 * the agent shows the line like any other output. tend checks the same
 * steps before starting the command and reports them the same way.
 *
 * A chroot needs a helper that calls chroot(2) and then execs the command
 * (Node has no chroot): perl where present, as its POSIX module does it
 * the way 3.21 does; else coreutils `chroot`, which also changes into the
 * new root, so a command without `chdir` starts there rather than outside.
 */
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { errorText } from "../files/step.js";

/** An exit status with the line the child printed. */
export interface SetupFailure {
  readonly line: string;
  readonly exitCode: 1;
}

export interface ChildSetup {
  readonly chroot?: string;
  readonly cwd?: string;
  readonly uid?: number;
  readonly gid?: number;
}

/** The uid 3.21 names when asked for the login groups of no user at all. */
const NO_USER = 0xffffffff;

/** The first step of the child's setup that would fail, as the child reports it. */
export function findSetupFailure(setup: ChildSetup): SetupFailure | undefined {
  if (setup.chroot) {
    const problem = directoryProblem(setup.chroot);
    if (problem) return fail(`Couldn't chroot to '${setup.chroot}'. (chroot: ${problem})`);
  }
  if (setup.cwd) {
    const inRoot = setup.chroot && isAbsolute(setup.cwd) ? join(setup.chroot, setup.cwd) : setup.cwd;
    const problem = directoryProblem(inRoot);
    if (problem) return fail(`Couldn't chdir to '${setup.cwd}'. (chdir: ${problem})`);
  }
  if (setup.gid !== undefined && setup.uid === undefined) {
    // 3.21 sets the login groups of the exec_owner, and fails when there is none.
    return fail(`Unable to get login groups when dropping privilege to '${NO_USER}'. (getpwuid: Success)`);
  }
  return undefined;
}

function fail(message: string): SetupFailure {
  return { line: `   error: ${message}`, exitCode: 1 };
}

function directoryProblem(path: string): string | undefined {
  try {
    if (!statSync(path).isDirectory()) return "Not a directory";
    accessSync(path, constants.X_OK);
    return undefined;
  } catch (error) {
    return errorText(error);
  }
}

const PERL = "/usr/bin/perl";
const COREUTILS_CHROOT = "/usr/sbin/chroot";

/**
 * chroot(2), an optional chdir, the group and the user, then exec: the
 * arguments are the root, the directory, the gid and uid ("" for none),
 * then the command.
 */
const PERL_CHROOT = [
  "use POSIX;",
  "my ($root, $dir, $gid, $uid, @argv) = @ARGV;",
  `sub fail { print "   error: $_[0]\\n"; exit 1 }`,
  `chroot($root) or fail("Couldn't chroot to '$root'. (chroot: $!)");`,
  `$dir eq "" or chdir($dir) or fail("Couldn't chdir to '$dir'. (chdir: $!)");`,
  `if ($gid ne "") { $) = "$gid $gid"; POSIX::setgid($gid) or fail("Couldn't set gid to '$gid'. (setgid: $!)") }`,
  `if ($uid ne "") { POSIX::setuid($uid) or fail("Couldn't set uid to '$uid'. (setuid: $!)") }`,
  `exec { $argv[0] } @argv or fail("Couldn't run '$argv[0]'. (execv: $!)");`,
].join("\n");

/**
 * How to start `argv` inside `setup.chroot`: the helper's command line and
 * what the spawn itself still has to do (the helper changes user after the
 * chroot, which needs root).
 */
export function chrootCommand(setup: ChildSetup & { chroot: string }, argv: readonly string[]): string[] {
  const id = (value: number | undefined) => (value === undefined ? "" : String(value));
  if (existsSync(PERL)) {
    return [PERL, "-e", PERL_CHROOT, setup.chroot, setup.cwd ?? "", id(setup.gid), id(setup.uid), ...argv];
  }
  const group = setup.gid === undefined ? "" : `:${setup.gid}`;
  const user = setup.uid === undefined ? [] : [`--userspec=${setup.uid}${group}`];
  return [COREUTILS_CHROOT, ...user, setup.chroot, ...argv];
}
