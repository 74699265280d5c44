/**
 * The one error the network layer throws. `kind` says what went wrong so a
 * caller can decide without reading the message: a refusal carries the
 * server's own text (3.21's `BAD: …` line) in `message`.
 */
export type NetErrorKind = "connect" | "timeout" | "refused" | "protocol" | "untrusted" | "closed";

export class NetError extends Error {
  readonly kind: NetErrorKind;

  constructor(kind: NetErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "NetError";
    this.kind = kind;
  }
}

/** Whether `error` is a NetError (of `kind`, when given). */
export function isNetError(error: unknown, kind?: NetErrorKind): error is NetError {
  return error instanceof NetError && (kind === undefined || error.kind === kind);
}
