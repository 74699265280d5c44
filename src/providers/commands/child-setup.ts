/**
 * What a command's child does between fork and exec: chroot (without
 * changing directory), chdir, set the group and the user. The runner does
 * the chdir and the ids itself; this checks beforehand the steps whose
 * failure a front end reports (as 3.21's child does, with its messages),
 * and builds the helper command that enters a chroot.
 *
 * A chroot needs a helper that calls chroot(2) and then execs the command
 * (Node has no chroot): perl where present, as its POSIX module does it
 * the way 3.21 does; else coreutils `chroot`, which also changes into the
 * new root, so a command without `chdir` starts there rather than outside.
 */
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";

export interface ChildSetup {
  readonly chroot?: string;
  readonly cwd?: string;
  readonly uid?: number;
  readonly gid?: number;
}

/** A setup step that would fail: which one, and the sentence 3.21's child prints for it. */
export interface SetupFailure {
  readonly step: "chroot" | "chdir";
  readonly message: string;
}

/** The first step of the child's setup that would fail (the chroot, then the directory in it). */
export function findSetupFailure(setup: ChildSetup): SetupFailure | undefined {
  if (setup.chroot) {
    const problem = directoryProblem(setup.chroot);
    if (problem)
      return { step: "chroot", message: `Couldn't chroot to '${setup.chroot}'. (chroot: ${problem})` };
  }
  if (setup.cwd) {
    const inRoot = setup.chroot && isAbsolute(setup.cwd) ? join(setup.chroot, setup.cwd) : setup.cwd;
    const problem = directoryProblem(inRoot);
    if (problem) return { step: "chdir", message: `Couldn't chdir to '${setup.cwd}'. (chdir: ${problem})` };
  }
  return undefined;
}

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOENT: "No such file or directory",
  ENOTDIR: "Not a directory",
  EACCES: "Permission denied",
  ELOOP: "Too many levels of symbolic links",
  ENAMETOOLONG: "File name too long",
};

function directoryProblem(path: string): string | undefined {
  try {
    if (!statSync(path).isDirectory()) return "Not a directory";
    accessSync(path, constants.X_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    return ERRNO_TEXT[code] ?? (error as Error).message;
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
 * How to start `argv` inside `setup.chroot`: the helper's command line (the
 * helper changes user after the chroot, which needs root).
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
