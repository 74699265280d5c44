/**
 * Where the agent reads Linux's /proc from: `/proc`, or under the directory
 * CFENGINE_TEST_OVERRIDE_PROCDIR names (`$PROCDIR/proc/net/route`...), as
 * 3.21's GetRelocatedProcdirRoot allows for tests.
 */
export function procPath(relative: string): string {
  const root = process.env.CFENGINE_TEST_OVERRIDE_PROCDIR ?? "";
  return `${root}/proc/${relative}`;
}
