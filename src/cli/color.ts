/**
 * Whether and how the CLI colours its output. Colour is used only on a
 * terminal and never when NO_COLOR is set (https://no-color.org), unless
 * `--color always` asks for it explicitly.
 */
import { styleText } from "node:util";
import type { Style, Styler } from "./render.js";

export type ColorMode = "always" | "auto" | "never";

/** Decides colour for one output stream. */
export function shouldColor(
  mode: ColorMode,
  stream: { readonly isTTY?: boolean },
  env: NodeJS.ProcessEnv,
): boolean {
  if (mode === "always") return true;
  if (mode === "never") return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return stream.isTTY === true && env.TERM !== "dumb";
}

type Format = Parameters<typeof styleText>[0];

const formats: Record<Style, Format> = {
  error: ["bold", "red"],
  warning: ["bold", "yellow"],
  location: "bold",
  underline: ["bold", "green"],
  gutter: "cyan",
  code: "dim",
  bold: "bold",
};

/** A styler that adds ANSI codes, or one that returns text unchanged. */
export function makeStyler(color: boolean): Styler {
  if (!color) return (_style, text) => text;
  // Newer Node versions check the stream themselves; the decision is made above.
  return (style, text) => styleText(formats[style], text, { validateStream: false });
}
