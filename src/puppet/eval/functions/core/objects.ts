/**
 * `annotate`: attaches, reads, replaces or clears annotations (instances of
 * an Object type whose parent is `Annotation`) on Object values and types.
 */
import { annotate as annotateValue } from "../../types/user-objects.js";
import { isType } from "../../values.js";
import { FunctionArgumentError, type PuppetFunction } from "../registry.js";

export const annotate: PuppetFunction = (_ctx, args, block) => {
  if (args.length < 2 || args.length > 3)
    throw new FunctionArgumentError(`'annotate' expects between 2 and 3 arguments, got ${args.length}`);
  const [type, value, third] = args;
  if (!isType(type)) throw new FunctionArgumentError("'annotate' parameter 'type' expects a Type value");
  if (third !== undefined && block)
    throw new FunctionArgumentError("'annotate' expects no block when given an annotation hash");
  return annotateValue(type, value, third, block ? () => block.call([]) : undefined);
};
