/**
 * The command line of a `commands` promise as 3.21 builds it, and the
 * short prefix it quotes output lines with.
 */
import type { ShellMode } from "../../eval/functions/exec.js";

/** The promiser, then `args`, then each `arglist` item, separated by single blanks. */
export function buildCommandLine(
  promiser: string,
  args: string | undefined,
  arglist: readonly string[],
): string {
  let line = promiser;
  if (args !== undefined) line += ` ${args}`;
  for (const item of arglist) line += ` ${item}`;
  return line;
}

/**
 * The 15 characters quoted before each output line: from 10 characters
 * before the end of the program word (or the start, when it is shorter).
 */
export function commandPrefix(commandLine: string): string {
  const space = commandLine.indexOf(" ");
  const end = space === -1 ? commandLine.length : space;
  const start = Math.max(0, end - 10);
  return commandLine.slice(start, start + 15);
}

const SHELL_WORDS: Readonly<Record<string, ShellMode>> = {
  noshell: "noshell",
  useshell: "useshell",
  powershell: "powershell",
  true: "useshell",
  yes: "useshell",
  on: "useshell",
  false: "noshell",
  no: "noshell",
  off: "noshell",
};

/** `useshell` as written: the historical boolean words count too; absent or unknown is no shell. */
export function parseShellMode(text: string | undefined): ShellMode {
  return (text !== undefined && SHELL_WORDS[text]) || "noshell";
}

/** An octal umask (`"022"`, `"77"`); undefined when not octal. */
export function parseUmask(text: string | undefined): number | undefined {
  if (text === undefined || !/^[0-7]{1,4}$/.test(text)) return undefined;
  return Number.parseInt(text, 8);
}
