/**
 * The Puppet 7 type system. Every type is a `PType`; `typeByName` knows the
 * built-in names, the evaluator resolves aliases and resource types through
 * a `TypeResolver`. Resource and class references are types too:
 * `File['/x']` is `Resource['File', '/x']`, `Class['ntp']` is a Class type
 * with a title. The implementation lives in ./types/.
 */
import type { PType } from "./types/base.js";

export { PType, RecursionGuard, TypeSystemError } from "./types/base.js";
export {
  parameterize,
  typeByName,
  structOf,
  badKeyTypeName,
  rubyClassName,
  SliceTypeError,
} from "./types/access.js";
export { commonType, inferGeneric, inferSet, inferType, reduceType } from "./types/infer.js";
export {
  describeBlockMismatch,
  describeMismatch,
  describeParameterMismatch,
  describeValueMismatches,
  describeTypeMismatch,
} from "./types/mismatch.js";
export { formatValue } from "./types/format.js";
export { newInstance, stringFormat } from "./types/convert.js";
export { puppetQuote, regexpToString, rubyFloat, formatTypeArg } from "./types/quote.js";
export * from "./types/model.js";
export * from "./types/objects.js";

/** How the type system reaches names it does not own (aliases, resource types, classes). */
export interface TypeResolver {
  /** A type alias or a resource type by lower-case name (`my::type`, `file`), or undefined. */
  resolve(name: string): PType | undefined;
}
export {
  evaluateLiteral,
  type LiteralOptions,
  type NameResolver,
  parseLiteralExpression,
  parseTypeString,
} from "./types/parse.js";
export {
  parseTimespanFormat,
  formatTimespanNs,
  parseTimespanText,
  TIMESPAN_DEFAULT_FORMATS,
} from "./types/timespan-format.js";
export { parseTimestampText, strptime, utcOffset, TIMESTAMP_FORMATS } from "./types/timestamp-format.js";
