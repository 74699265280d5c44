/** `touch => "true"`: set the access and modification times to now. */
import { touchPath } from "../../providers/files/rename.js";
import { errorText, type FileStep } from "./step.js";

export function touchFile(step: FileStep): void {
  const { path } = step;
  if (!step.makingChanges(`update time stamps for '${path}'`)) return;
  const touched = touchPath(path);
  if (touched.status === "failed")
    step.failed(`Touch '${path}' failed to update timestamps. (utime: ${errorText(touched.cause)})`);
  else step.changed(`Touched (updated time stamps) for path '${path}'`);
}
