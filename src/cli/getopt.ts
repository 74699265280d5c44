/**
 * GNU getopt_long as the CFEngine tools use it, for the commands that
 * must take their command lines exactly (`tend net`, `tend runagent`):
 * short options bundled (`-vI`) or with attached values (`-H127.0.0.1`),
 * long options with `=` or a separate value, unique prefixes of long
 * names, optional values only when attached (`-b3`, `--background=3`),
 * and either permutation (options anywhere, as getopt by default) or a
 * stop at the first word that is not an option (getopt's "+", as cf-net).
 *
 * Problems are returned, never thrown or printed: the caller words them.
 */

export type ArgumentKind = "none" | "required" | "optional";

export interface OptionSpec {
  /** The one-letter name, if any. */
  readonly short?: string;
  /** The long name, if any (without dashes). */
  readonly long?: string;
  readonly argument: ArgumentKind;
  /** What the caller calls it (the long name by default, else the short one). */
  readonly key?: string;
}

export interface ParsedOption {
  readonly key: string;
  readonly value: string | undefined;
}

export interface GetoptResult {
  /** The options in command-line order. */
  readonly options: readonly ParsedOption[];
  /** The words that are not options, in order. */
  readonly operands: readonly string[];
  /** The first problem, as getopt would print it after `PROGRAM: ` (then the parse stopped). */
  readonly error?: string;
}

function keyOf(spec: OptionSpec): string {
  return spec.key ?? spec.long ?? spec.short ?? "";
}

/**
 * Parses `args` by `specs`. With `stopAtOperand`, everything from the first
 * operand on is left as operands (getopt's "+"); otherwise operands and
 * options may be mixed. `--` ends the options either way.
 */
export function getopt(
  args: readonly string[],
  specs: readonly OptionSpec[],
  stopAtOperand = false,
): GetoptResult {
  const options: ParsedOption[] = [];
  const operands: string[] = [];
  let i = 0;
  const fail = (error: string): GetoptResult => ({ options, operands, error });
  while (i < args.length) {
    const arg = args[i];
    i += 1;
    if (arg === "--") {
      operands.push(...args.slice(i));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) {
      operands.push(arg);
      if (stopAtOperand) {
        operands.push(...args.slice(i));
        break;
      }
      continue;
    }
    if (arg.startsWith("--")) {
      const result = parseLong(arg, specs, () => (i < args.length ? args[i++] : undefined));
      if (typeof result === "string") return fail(result);
      options.push(result);
      continue;
    }
    for (let at = 1; at < arg.length; at += 1) {
      const letter = arg[at];
      const spec = specs.find((s) => s.short === letter);
      if (!spec) return fail(`invalid option -- '${letter}'`);
      const rest = arg.slice(at + 1);
      if (spec.argument === "none") {
        options.push({ key: keyOf(spec), value: undefined });
        continue;
      }
      if (rest !== "" || spec.argument === "optional") {
        options.push({ key: keyOf(spec), value: rest === "" ? undefined : rest });
        break;
      }
      if (i >= args.length) return fail(`option requires an argument -- '${letter}'`);
      options.push({ key: keyOf(spec), value: args[i] });
      i += 1;
      break;
    }
  }
  return { options, operands };
}

function parseLong(
  arg: string,
  specs: readonly OptionSpec[],
  next: () => string | undefined,
): ParsedOption | string {
  const eq = arg.indexOf("=");
  const name = arg.slice(2, eq < 0 ? undefined : eq);
  const inline = eq < 0 ? undefined : arg.slice(eq + 1);
  const exact = specs.find((s) => s.long === name);
  const prefixed = specs.filter((s) => s.long?.startsWith(name));
  const spec = exact ?? (prefixed.length === 1 ? prefixed[0] : undefined);
  if (!spec) {
    if (prefixed.length > 1) return `option '--${name}' is ambiguous`;
    return `unrecognized option '--${name}'`;
  }
  if (spec.argument === "none") {
    if (inline !== undefined) return `option '--${spec.long}' doesn't allow an argument`;
    return { key: keyOf(spec), value: undefined };
  }
  if (inline !== undefined || spec.argument === "optional") return { key: keyOf(spec), value: inline };
  const value = next();
  if (value === undefined) return `option '--${spec.long}' requires an argument`;
  return { key: keyOf(spec), value };
}
