/**
 * The parameter tuples of each built-in type's `new` (its dispatch
 * signatures, as Puppet 7.23 declares them), which `Init[T]` derives its
 * instance and assignability checks from; user-defined Object types take
 * one init hash or their attributes in order.
 */
import { PObjectType, PTupleType, PTypeAliasType, type PType, PIntegerType } from "./model.js";
import { PUserObjectType } from "./user-objects.js";

const SIGNATURES: Record<string, readonly string[]> = {
  Numeric: [
    "Tuple[Variant[Integer, Float, Boolean, Pattern[/\\A[+-]?\\s*(?:(?:(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE]-?\\d+)?)|(?:0[xX][0-9A-Fa-f]+)|(?:0[0-7]+)|(?:0[bB][01]+))\\z/], Timespan, Timestamp], Boolean, 1, 2]",
    "Tuple[Struct[{'from' => Variant[Integer, Float, Boolean, Pattern[/\\A[+-]?\\s*(?:(?:(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE]-?\\d+)?)|(?:0[xX][0-9A-Fa-f]+)|(?:0[0-7]+)|(?:0[bB][01]+))\\z/], Timespan, Timestamp], Optional['abs'] => Boolean}]]",
  ],
  Integer: [
    "Tuple[Variant[Numeric, Boolean, Pattern[/\\A[+-]?\\s*(?:(?:\\d+)|(?:0[xX][0-9A-Fa-f]+)|(?:0[bB][01]+))\\z/], Timespan, Timestamp], Variant[Default, Integer[2, 2], Integer[8, 8], Integer[10, 10], Integer[16, 16]], Boolean, 1, 3]",
    "Tuple[Struct[{'from' => Variant[Numeric, Boolean, Pattern[/\\A[+-]?\\s*(?:(?:\\d+)|(?:0[xX][0-9A-Fa-f]+)|(?:0[bB][01]+))\\z/], Timespan, Timestamp], Optional['radix'] => Variant[Default, Integer[2, 2], Integer[8, 8], Integer[10, 10], Integer[16, 16]], Optional['abs'] => Boolean}]]",
  ],
  Float: [
    "Tuple[Variant[Numeric, Boolean, Pattern[/\\A[+-]?\\s*(?:(?:(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE]-?\\d+)?)|(?:0[xX][0-9A-Fa-f]+)|(?:0[0-7]+)|(?:0[bB][01]+))\\z/], Timespan, Timestamp], Boolean, 1, 2]",
    "Tuple[Struct[{'from' => Variant[Numeric, Boolean, Pattern[/\\A[+-]?\\s*(?:(?:(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE]-?\\d+)?)|(?:0[xX][0-9A-Fa-f]+)|(?:0[0-7]+)|(?:0[bB][01]+))\\z/], Timespan, Timestamp], Optional['abs'] => Boolean}]]",
  ],
  String: [
    "Tuple[Any, Variant[Default, String[1], Hash[Type, Variant[Pattern[/^%([\\s\\[+#0{<(|-]*)([1-9][0-9]*)?(?:\\.([0-9]+))?([a-zA-Z])$/], Struct[{Optional['format'] => Pattern[/^%([\\s\\[+#0{<(|-]*)([1-9][0-9]*)?(?:\\.([0-9]+))?([a-zA-Z])$/], Optional['separator'] => String, Optional['separator2'] => String, Optional['string_formats'] => Hash[Type, Pattern[/^%([\\s\\[+#0{<(|-]*)([1-9][0-9]*)?(?:\\.([0-9]+))?([a-zA-Z])$/]]}]]]], 1, 2]",
  ],
  Boolean: ["Tuple[Variant[Integer, Float, Boolean, Enum['false', 'n', 'no', 'true', 'y', 'yes', true]]]"],
  Array: ["Tuple[Variant[Array, Hash, Binary, Iterable], Boolean[false], 1, 2]", "Tuple[Any, Boolean[true]]"],
  Hash: [
    "Tuple[Array[Tuple[Array, Any], 1], Enum['hash_tree', 'tree'], 1, 2]",
    "Tuple[Array[Tuple[Any, Any], 1]]",
    "Tuple[Any]",
  ],
  Sensitive: ["Tuple[Sensitive]", "Tuple[Any]"],
  Regexp: ["Tuple[String, Boolean, 1, 2]"],
  Binary: [
    "Tuple[String, Enum['%B', '%b', '%r', '%s', '%u'], 1, 2]",
    "Tuple[Array[Integer[0, 255]]]",
    "Tuple[Variant[Struct[{'value' => String, 'format' => Optional[Enum['%B', '%b', '%r', '%s', '%u']]}], Struct[{'value' => Array[Integer[0, 255]]}]]]",
  ],
  Timespan: [
    "Tuple[Variant[Integer, Float]]",
    "Tuple[String[1], Variant[String[2], Array[String[2], 1]], 1, 2]",
    "Tuple[Integer, Integer, Integer, Integer, Integer, Integer, Integer, 4, 7]",
    "Tuple[Struct[{'string' => String[1], Optional['format'] => Variant[String[2], Array[String[2], 1]]}]]",
    "Tuple[Struct[{Optional['negative'] => Boolean, Optional['days'] => Integer, Optional['hours'] => Integer, Optional['minutes'] => Integer, Optional['seconds'] => Integer, Optional['milliseconds'] => Integer, Optional['microseconds'] => Integer, Optional['nanoseconds'] => Integer}]]",
  ],
  Timestamp: [
    "Tuple",
    "Tuple[Variant[Integer, Float]]",
    "Tuple[String[1], Variant[String[2], Array[String[2], 1]], String[1], 1, 3]",
    "Tuple[Struct[{'string' => String[1], Optional['format'] => Variant[String[2], Array[String[2], 1]], Optional['timezone'] => String[1]}]]",
  ],
  SemVer: [
    "Tuple[Pattern[/\\A(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?(?:\\+([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?\\Z/]]",
    "Tuple[Integer[0], Integer[0], Integer[0], Pattern[/\\A[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*\\Z/], Pattern[/\\A[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*\\Z/], 3, 5]",
    "Tuple[Struct[{'major' => Integer[0], 'minor' => Integer[0], 'patch' => Integer[0], Optional['prerelease'] => Pattern[/\\A[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*\\Z/], Optional['build'] => Pattern[/\\A[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*\\Z/]}]]",
  ],
  SemVerRange: [
    "Tuple[String[1]]",
    "Tuple[Variant[Default, SemVer], Variant[Default, SemVer], Boolean, 2, 3]",
    "Tuple[Struct[{'min' => Variant[Default, SemVer], Optional['max'] => Variant[Default, SemVer], Optional['exclude_max'] => Boolean}]]",
  ],
  URI: [
    "Tuple[String[1]]",
    "Tuple[Struct[{Optional['scheme'] => String[1], Optional['userinfo'] => String[1], Optional['host'] => String[1], Optional['port'] => Integer[0], Optional['path'] => String[1], Optional['query'] => String[1], Optional['fragment'] => String[1], Optional['opaque'] => String[1]}]]",
  ],
  Type: ["Tuple[String[1]]"],
  Error: [
    "Tuple[Struct[{'msg' => String[1], 'kind' => Optional[String[1]], 'details' => Optional[Hash[String[1], Data]], 'issue_code' => Optional[String[1]]}], 1, 1]",
    "Tuple[String[1], Optional[String[1]], Optional[Hash[String[1], Data]], Optional[String[1]], 1, 4]",
  ],
  Deferred: [
    "Tuple[Struct[{'name' => Pattern[/\\A[$]?[a-z][a-z0-9_]*(?:::[a-z][a-z0-9_]*)*\\z/], 'arguments' => Optional[Array]}], 1, 1]",
    "Tuple[Pattern[/\\A[$]?[a-z][a-z0-9_]*(?:::[a-z][a-z0-9_]*)*\\z/], Optional[Array], 1, 2]",
  ],
};
SIGNATURES.Tuple = SIGNATURES.Array as readonly string[];
SIGNATURES.Struct = SIGNATURES.Hash as readonly string[];

const parsed = new Map<string, readonly PTupleType[]>();

/** `T.new`'s parameter tuples, or undefined when `T` cannot be created with `new`. */
export function newSignatures(t: PType, parse: (s: string) => PType): readonly PTupleType[] | undefined {
  if (t instanceof PTypeAliasType) return newSignatures(t.resolvedType(), parse);
  if (t instanceof PUserObjectType) {
    const info = t.parameterInfo();
    return [
      new PTupleType([t.initStruct()]),
      new PTupleType(info.types, new PIntegerType(BigInt(info.required), BigInt(info.names.length))),
    ];
  }
  const key = t instanceof PObjectType ? t.name : t.kind;
  const texts = Object.hasOwn(SIGNATURES, key) ? SIGNATURES[key] : undefined;
  if (!texts) return undefined;
  let tuples = parsed.get(key);
  if (!tuples) {
    // `Tuple` is Timestamp's `new` without arguments: exactly none.
    tuples = texts.map((s) =>
      s === "Tuple" ? new PTupleType([], new PIntegerType(0n, 0n)) : (parse(s) as PTupleType),
    );
    parsed.set(key, tuples);
  }
  return tuples;
}
