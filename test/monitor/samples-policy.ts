/**
 * The measurements promises and the data they read over several samples,
 * shared by scripts/record-monitord-samples.ts (which runs cf-monitord 3.21
 * on them) and test/monitor/measurements-samples.test.ts (which runs tend's
 * monitor on the same data at the recorded times).
 */

export const DATA_PLACEHOLDER = "@DATA@";

/** The data file's content for each sample in turn: values that rise, fall and repeat. */
export const SAMPLE_DATA: readonly string[] = [
  "temp=42\nname=alpha\nerr 3\n",
  "temp=50\nname=beta\nerr 3\nerr 4\n",
  "temp=38.5\nname=gamma\n",
  "temp=61\nname=delta\nerr 9\nerr 9\nerr 2\n",
  "temp=40\nname=alpha\nerr 1\n",
];

export function samplesPolicy(): string {
  return `body common control { bundlesequence => { "main" }; }
bundle monitor watch {
  measurements:
    "${DATA_PLACEHOLDER}"
      handle => "temp_now", stream_type => "file", data_type => "int", history_type => "scalar",
      units => "C", match_value => extract("temp=.*", "temp=([0-9]+)");
    "${DATA_PLACEHOLDER}"
      handle => "temp_weekly", stream_type => "file", data_type => "real", history_type => "weekly",
      match_value => extract("temp=.*", "temp=([0-9.]+)");
    "${DATA_PLACEHOLDER}"
      handle => "errors", stream_type => "file", data_type => "counter", history_type => "scalar",
      match_value => extract("err.*", "err ([0-9]+)");
    "${DATA_PLACEHOLDER}"
      handle => "error_codes", stream_type => "file", data_type => "counter", history_type => "weekly",
      match_value => extract("err.*", "err ([0-9]+)");
    "${DATA_PLACEHOLDER}"
      handle => "logged", stream_type => "file", data_type => "string", history_type => "log",
      match_value => extract("name=.*", "name=(.*)");
    "/bin/echo value 17"
      handle => "echoed", stream_type => "pipe", data_type => "int", history_type => "weekly",
      match_value => extract("value.*", "value ([0-9]+)");
}
body match_value extract(line, regex) { select_line_matching => "$(line)"; extraction_regex => "$(regex)"; }
bundle agent main {
}
`;
}
