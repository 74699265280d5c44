/** A template error: what is wrong, where in the template. */
export class TemplateError extends Error {
  override readonly name = "TemplateError";
  constructor(
    message: string,
    readonly file: string,
    readonly line?: number,
  ) {
    super(message);
  }
}
