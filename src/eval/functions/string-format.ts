/**
 * format() of 3.21. The format is cut into pieces `%...conv` followed by
 * plain text; `%d %o %x` read a long, `%f` a double, `%s` the text, `%S`
 * serializes the list or container variable the argument names, `%%` is a
 * percent sign. Other conversions (`%i %u %X %e %g %c`...) print
 * "(unhandled format)" but still use an argument. A `%` that starts no
 * piece ends the output.
 */
import { type Value, isList, isScalar } from "../values.js";
import { fromByteString, toByteString } from "../regex/bytes.js";
import { formatBytes, formatFixed, formatInteger, parseSpec, scanDouble, scanLong } from "./c-printf.js";
import { renderCompactJson } from "./json-text.js";
import { lookUpVariable } from "./containers.js";
import type { FunctionContext } from "./types.js";

const PIECE = /^(%%|%[^diouxXeEfFgGaAcsCSpnm%]*?[diouxXeEfFgGaAcsCSpnm])([^%]*)(.*)$/s;
const BAD_MODIFIERS = "hLqjzt";

export interface FormatFailure {
  readonly error: string;
  readonly level: "error" | "verbose";
}

/** Formats as 3.21's format(); arguments are the values after the format. */
export function formatString(
  format: string,
  args: readonly Value[],
  fc: FunctionContext,
): string | FormatFailure {
  const bytes = toByteString(format);
  const first = bytes.indexOf("%");
  if (first === -1) return format;
  let out = bytes.slice(0, first);
  let rest = bytes.slice(first);
  let next = 0;
  for (;;) {
    const match = PIECE.exec(rest);
    if (!match) break;
    const piece = match[1];
    let argument: Value | undefined;
    if (piece !== "%%") {
      argument = args[next++];
      if (!argument) return { error: "format() didn't have enough parameters", level: "error" };
    }
    const converted = convertPiece(piece, argument, fc);
    if (typeof converted !== "string") return converted;
    out += converted + match[2];
    rest = match[3];
  }
  return fromByteString(out);
}

function convertPiece(
  piece: string,
  argument: Value | undefined,
  fc: FunctionContext,
): string | FormatFailure {
  for (const bad of BAD_MODIFIERS) {
    if (piece.includes(bad)) {
      return {
        error: `format() does not allow modifier character '${bad}' in format specifier '${piece}'.`,
        level: "error",
      };
    }
  }
  if (piece === "%%") return "%";
  const conversion = piece[piece.length - 1];
  const data = argument && isScalar(argument) ? toByteString(argument.value) : "";
  const spec = parseSpec(conversion === "S" ? `${piece.slice(0, -1)}s` : piece);
  switch (conversion) {
    case "d":
    case "o":
    case "x":
      return spec ? formatInteger(scanLong(data), spec) : piece;
    case "f":
      return spec ? formatFixed(scanDouble(data), spec) : piece;
    case "s":
      return spec ? formatBytes(data, spec) : piece;
    case "S":
      return serializeArgument(argument, fc, spec);
    default:
      return "(unhandled format)";
  }
}

/** `%S`: the container (compact JSON) or string list (`{ "a", "b" }`) the argument names. */
function serializeArgument(
  argument: Value | undefined,
  fc: FunctionContext,
  spec: ReturnType<typeof parseSpec>,
): string | FormatFailure {
  const value = argument && isScalar(argument) ? lookUpVariable(fc, argument.value) : argument;
  let rendered: string | undefined;
  if (value?.type === "data") rendered = renderCompactJson(value.value);
  else if (value && isList(value) && value.type === "slist") {
    rendered = `{ ${value.value.map((v) => `"${v.replace(/"/g, '\\"')}"`).join(", ")} }`;
  }
  if (rendered === undefined) {
    const name = argument && isScalar(argument) ? argument.value : "";
    return {
      error: `format() with %S specifier needs a data container or a list instead of '${name}'.`,
      level: "verbose",
    };
  }
  const bytes = toByteString(rendered);
  return spec ? formatBytes(bytes, spec) : bytes;
}
