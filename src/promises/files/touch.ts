/** `touch => "true"`: set the access and modification times to now. */
import { utimesSync } from "../../system/safe-fs.js";
import { errorText, type FileStep } from "./step.js";

export function touchFile(step: FileStep): void {
  const { path } = step;
  if (!step.makingChanges(`update time stamps for '${path}'`)) return;
  try {
    const now = new Date();
    utimesSync(path, now, now);
    step.changed(`Touched (updated time stamps) for path '${path}'`);
  } catch (error) {
    step.failed(`Touch '${path}' failed to update timestamps. (utime: ${errorText(error)})`);
  }
}
