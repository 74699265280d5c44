/**
 * When cf-execd 3.21 runs the agent: at each pulse (every 60 seconds) it
 * rediscovers the host's hard classes with the time classes of now and runs
 * the agent when one of the schedule's class expressions holds.
 */
import { parseClassExpression, evaluateClassExpression } from "../eval/class-expression.js";
import { discoverHardClasses } from "../eval/hard-classes.js";
import { getHostFacts, type HostFacts } from "../eval/host.js";

/** cf-execd's pulse: seconds between two looks at the schedule. */
export const PULSE_SECONDS = 60;

/** The classes the schedule sees at `now`: the hard classes (time classes included), and `extra`. */
export function scheduleClasses(
  now: Date,
  extra: readonly string[] = [],
  facts: HostFacts = getHostFacts(),
): Set<string> {
  const classes = new Set(discoverHardClasses(facts, now, "executor").map(([name]) => name));
  for (const name of extra) classes.add(name);
  return classes;
}

/** The first schedule entry that holds for these classes, or undefined. */
export function scheduledBy(schedule: readonly string[], classes: ReadonlySet<string>): string | undefined {
  for (const expression of schedule) {
    const parsed = parseClassExpression(expression);
    if (parsed.ok && evaluateClassExpression(parsed.expression, (name) => classes.has(name)))
      return expression;
  }
  return undefined;
}
