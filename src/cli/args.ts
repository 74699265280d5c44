/**
 * Command-line parsing shared by the subcommands: node:util's parseArgs for
 * the splitting, tend's own words for what is wrong (a UsageError naming the
 * option), and getopt's optional values (`--color`, `-C`), which must be
 * attached (`--color=never`, `-Cnever`) so that `-C ./policy.cf` leaves the
 * file alone, as in cf-agent and cf-promises.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "./io.js";

type OptionSpecs = NonNullable<ParseArgsConfig["options"]>;

/** What parseArgs returns for `options` with positionals allowed. */
export type ParsedCommandLine<T extends OptionSpecs> = ReturnType<
  typeof parseArgs<{ options: T; allowPositionals: true }>
>;

/**
 * Splits `args` by `options`. `optionalValues` maps an option written alone
 * to its form with the default value (`"--color": "--color=auto"`). Throws
 * a UsageError for an unknown option, a missing value or a value given to
 * a flag.
 */
export function parseCommandLine<const T extends OptionSpecs>(
  args: readonly string[],
  options: T,
  optionalValues: Readonly<Record<string, string>> = {},
): ParsedCommandLine<T> {
  const { values, positionals, tokens } = parseArgs({
    args: fillOptionalValues(args, optionalValues),
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const spec = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (!spec) throw new UsageError(`unknown option '${token.rawName}'`);
    if (spec.type === "string" && token.value === undefined)
      throw new UsageError(`option '${token.rawName}' needs a value`);
    if (spec.type === "boolean" && token.inlineValue)
      throw new UsageError(`option '${token.rawName}' takes no value`);
  }
  return { values, positionals } as unknown as ParsedCommandLine<T>;
}

function fillOptionalValues(
  args: readonly string[],
  optionalValues: Readonly<Record<string, string>>,
): string[] {
  const out: string[] = [];
  for (const [i, arg] of args.entries()) {
    if (arg === "--") return out.concat(args.slice(i));
    out.push(Object.hasOwn(optionalValues, arg) ? optionalValues[arg] : arg);
  }
  return out;
}

/** At most one policy file: a second one is refused, naming both. */
export function onePolicyFile(positionals: readonly string[]): string | undefined {
  if (positionals.length > 1)
    throw new UsageError(`one policy file expected, got ${positionals.length}: ${positionals.join(" ")}`);
  return positionals[0];
}

/** The colour modes of `--color`/`-C`, as cf-agent and cf-promises accept them. */
export const COLOR_MODES = ["always", "auto", "never"] as const;

/** `--color`'s value checked; a UsageError in cf-agent's words for another. */
export function colorMode(value: string | undefined): (typeof COLOR_MODES)[number] {
  if (value === undefined) return "auto";
  const mode = COLOR_MODES.find((m) => m === value);
  if (!mode) throw new UsageError(`Unrecognized color mode '${value}' (always, auto or never)`);
  return mode;
}
