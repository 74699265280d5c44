/**
 * The files a test run needs: a private copy of the suite, the helper
 * programs its policies call, and one fresh work directory per test whose
 * `bin/` holds the agent under test and its sibling tools.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The tools testall links into every work directory's `bin/`. */
export const BIN_TOOLS = [
  "cf-agent",
  "cf-promises",
  "cf-serverd",
  "cf-execd",
  "cf-key",
  "cf-secret",
  "cf-net",
  "cf-check",
  "cf-runagent",
] as const;

/** How `tend` stands in for each tool; tools missing here get a stub that fails loudly. */
const TEND_SUBCOMMANDS: Partial<Record<(typeof BIN_TOOLS)[number], string>> = {
  "cf-agent": "agent",
  "cf-promises": "check",
  "cf-serverd": "serverd",
  "cf-net": "net",
  "cf-runagent": "runagent",
  "cf-key": "key",
};

/** Where one tool comes from: a link to a real binary, or a wrapper around `tend`. */
export type ToolSource =
  | { readonly kind: "binaries"; readonly dir: string }
  | { readonly kind: "tend"; readonly node: string; readonly script: string };

/**
 * Where the tools of a run come from; `server`, when given, is where
 * `cf-serverd` alone comes from (a tend agent against the real server, or
 * the reverse: `sys.cf_serverd` is `<workdir>/bin/cf-serverd`).
 */
export type AgentSource = ToolSource & { readonly server?: ToolSource };

/**
 * Copies the suite to `dest` without group/other write permission: cf-agent
 * refuses to read a policy file others can write, and a checkout made with
 * umask 002 has exactly that. Tests then also cannot scribble on the original.
 */
export function copySuite(source: string, dest: string): void {
  cpSync(source, dest, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (path) => basename(path) !== "workdir",
  });
  removeGroupWrite(dest);
}

function removeGroupWrite(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  chmodSync(path, stat.mode & 0o7755);
  if (stat.isDirectory()) for (const name of readdirSync(path)) removeGroupWrite(join(path, name));
}

// Stands in for the CFEngine headers the helper sources include: they only
// need the C library and an error-string function.
const FAKE_PLATFORM_HEADER = `#ifndef TEND_CONFORMANCE_PLATFORM_H
#define TEND_CONFORMANCE_PLATFORM_H
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define GetErrorStr() strerror(errno)
#endif
`;

// Stands in for the CFEngine headers mock_package_manager.c includes: the
// few library calls it makes (a growing array, allocation that cannot fail,
// a help printer), written for the C library alone.
const FAKE_CF3_DEFS_HEADER = `#ifndef TEND_CONFORMANCE_CF3_DEFS_H
#define TEND_CONFORMANCE_CF3_DEFS_H
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void *xcalloc(size_t n, size_t size) { void *p = calloc(n, size); if (!p) abort(); return p; }
static char *xstrdup(const char *s) { char *p = strdup(s); if (!p) abort(); return p; }
static int xasprintf(char **out, const char *format, ...)
{ va_list ap; va_start(ap, format); int n = vasprintf(out, format, ap); va_end(ap); if (n < 0) abort(); return n; }
#define xsnprintf snprintf
typedef struct { void **items; size_t length, room; } Seq;
static Seq *SeqNew(size_t room, void (*destroy)(void *))
{ (void) destroy; Seq *s = xcalloc(1, sizeof(Seq)); s->room = room ? room : 1; s->items = xcalloc(s->room, sizeof(void *)); return s; }
static void SeqAppend(Seq *s, void *item)
{ if (s->length == s->room) { s->room *= 2; s->items = realloc(s->items, s->room * sizeof(void *)); if (!s->items) abort(); } s->items[s->length++] = item; }
static size_t SeqLength(const Seq *s) { return s->length; }
static void *SeqAt(const Seq *s, size_t i) { return s->items[i]; }
typedef FILE Writer;
static Writer *FileWriter(FILE *f) { return f; }
static void FileWriterDetach(Writer *w) { (void) w; }
static void WriterWriteHelp(Writer *w, const char *what, const struct option options[], const char **hints, ...)
{ fprintf(w, "%s\\n", what); for (int i = 0; options[i].name; i++) fprintf(w, "  --%s  %s\\n", options[i].name, hints[i]); }
#endif
`;

const HELPERS: readonly { name: string; source: string; libs: readonly string[] }[] = [
  { name: "xml-c14nize", source: "xml-c14nize.c", libs: ["libxml-2.0"] },
  { name: "no_fds", source: "no_fds.c", libs: [] },
  { name: "mock_package_manager", source: "mock_package_manager.c", libs: [] },
  { name: "custom_promise_binary", source: "30_custom_promise_types/custom_promise_binary.c", libs: [] },
];

function pkgConfig(flag: string, libs: readonly string[]): string[] {
  if (libs.length === 0) return [];
  return execFileSync("pkg-config", [flag, ...libs], { encoding: "utf8" })
    .trim()
    .split(/\s+/)
    .filter(Boolean);
}

/**
 * Compiles the suite's small C helpers (which its Makefile would build) into
 * the suite copy's top directory, where dcs.cf.sub looks for them. Returns
 * one note per helper that could not be built; the tests needing it fail.
 */
export function buildHelpers(suite: string, scratch: string): string[] {
  const include = join(scratch, "include");
  mkdirSync(include, { recursive: true });
  for (const header of ["platform.h", "logging.h"])
    writeFileSync(join(include, header), FAKE_PLATFORM_HEADER);
  writeFileSync(join(include, "cf3.defs.h"), FAKE_CF3_DEFS_HEADER);
  for (const header of ["rlist.h", "generic_agent.h", "cf-windows-functions.h"])
    writeFileSync(join(include, header), "");
  const notes: string[] = [];
  for (const helper of HELPERS) {
    // TEND_XML_C14NIZE=script uses the script even where the C helper builds.
    if (helper.name === "xml-c14nize" && process.env.TEND_XML_C14NIZE === "script") {
      writeXmlC14nizeScript(join(suite, helper.name));
      notes.push("helper xml-c14nize is tend's script (TEND_XML_C14NIZE=script)");
      continue;
    }
    try {
      const args = ["-O1", "-D_GNU_SOURCE", `-I${include}`, ...pkgConfig("--cflags", helper.libs)];
      args.push(
        "-o",
        join(suite, helper.name),
        join(suite, helper.source),
        ...pkgConfig("--libs", helper.libs),
      );
      execFileSync("cc", args, { stdio: "pipe" });
    } catch (error) {
      const detail = (error as { stderr?: Buffer }).stderr?.toString().split("\n")[0] ?? String(error);
      if (helper.name === "xml-c14nize") {
        writeXmlC14nizeScript(join(suite, helper.name));
        notes.push(`helper xml-c14nize is tend's script (libxml2 headers missing: ${detail})`);
      } else if (helper.name === "custom_promise_binary") {
        writeExecutable(join(suite, helper.name), CUSTOM_PROMISE_BINARY_SCRIPT);
        notes.push(`helper custom_promise_binary is a shell script (no C compiler: ${detail})`);
      } else notes.push(`could not build helper ${helper.name}: ${detail}`);
    }
  }
  return notes;
}

/**
 * Stands in for custom_promise_binary (30_custom_promise_types/13_binary_path.cf,
 * a promise module that needs no interpreter) where nothing compiles C: its
 * header, then `valid` and `kept` for its one promise, each after reading a line.
 */
const CUSTOM_PROMISE_BINARY_SCRIPT = `#!/bin/sh
printf 'binary 0.0.1 v1 line_based\\n\\n'
read -r _line
printf 'operation=validate_promise\\npromiser=foobar\\nresult=valid\\n\\n'
read -r _line
printf 'operation=evaluate_promise\\npromiser=foobar\\nresult=kept\\n\\n'
`;

/**
 * Stands in for the C xml-c14nize where libxml2's headers are missing:
 * the same canonical output, from tend's own XML library.
 */
function writeXmlC14nizeScript(path: string): void {
  const script = fileURLToPath(new URL("./xml-c14nize.js", import.meta.url));
  writeExecutable(path, `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(script)} "$@"\n`);
}

function writeExecutable(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o755 });
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Fills `bin` with the tools: symlinks to real binaries, or `tend`
 * wrappers. The wrappers keep stdout and stderr apart, as the real tools
 * do: tend writes its log lines to stdout like cf-agent and cf-promises, so
 * policies reading their output (`$(sys.cf_agent) ... > file`,
 * `cf-promises --show-vars | grep`, execresult) see what they would see.
 */
export function populateBin(bin: string, source: AgentSource, diff: string | undefined): void {
  for (const tool of BIN_TOOLS) {
    const target = join(bin, tool);
    const from: ToolSource = tool === "cf-serverd" && source.server ? source.server : source;
    if (from.kind === "binaries") {
      symlinkSync(join(from.dir, tool), target);
      continue;
    }
    const sub = TEND_SUBCOMMANDS[tool];
    writeExecutable(
      target,
      sub === undefined
        ? `#!/bin/sh\necho "${tool}: not implemented by tend" >&2\nexit 127\n`
        : tendWrapper(from, sub),
    );
  }
  if (diff !== undefined) symlinkSync(diff, join(bin, "diff"));
}

/**
 * A tool run as tend, its streams as the caller gave them. The process
 * keeps the tool's name as its first word (bash's `exec -a`), so that the
 * process table shows `.../bin/cf-agent ...` as for the real tool (tests
 * look for their own agent with processes promises).
 */
function tendWrapper(source: { readonly node: string; readonly script: string }, sub: string): string {
  return `#!/bin/bash\nexec -a "$0" ${shellQuote(source.node)} ${shellQuote(source.script)} ${sub} "$@"\n`;
}

/** The layout of one test's work directory. */
export interface WorkDir {
  readonly root: string;
  readonly bin: string;
  readonly tmp: string;
  readonly script: string;
}

/** `./10_files/a.cf` → `__10_files_a_cf`, testall's flattening of a test path into a directory name. */
export function flattenTestPath(test: string): string {
  return test.replace(/[./]/g, "_");
}

/** The work directory for `test` under `base`; nothing is created. */
export function getWorkDir(base: string, test: string): WorkDir {
  const root = join(base, flattenTestPath(test));
  return { root, bin: join(root, "bin"), tmp: join(root, "tmp"), script: join(root, "runtest") };
}

/** Empties and recreates `dir`, with a world-writable sticky `tmp/` and a filled `bin/`. */
export function resetWorkDir(dir: WorkDir, source: AgentSource, diff: string | undefined): void {
  rmSync(dir.root, { recursive: true, force: true });
  mkdirSync(dir.bin, { recursive: true });
  mkdirSync(dir.tmp);
  chmodSync(dir.tmp, 0o1777);
  populateBin(dir.bin, source, diff);
}

/** The agent's arguments for `test`: `-Klf <test> -D [test_pass_N,]<classes>`, plus `-v` when verbose. */
export function getAgentArgs(
  test: string,
  classes: string,
  pass: number | undefined,
  verbose: boolean,
): string[] {
  const defines = pass === undefined ? classes : `test_pass_${pass},${classes}`;
  return [...(verbose ? ["-v"] : []), "-Klf", test, "-D", defines];
}

/**
 * Writes the `runtest` script: the suite as working directory, the
 * environment testall gives every test (its own work directory and TEMP) and
 * the agent command. Kept in the work
 * directory so a failing test can be rerun by hand.
 */
export function writeRunScript(dir: WorkDir, suite: string, agent: string, args: readonly string[]): string {
  const text = [
    "#!/bin/sh",
    `cd ${shellQuote(suite)} || exit 2`,
    `CFENGINE_TEST_OVERRIDE_WORKDIR=${shellQuote(dir.root)}`,
    `TEMP=${shellQuote(dir.tmp)}`,
    "CFENGINE_TEST_OVERRIDE_EXTENSION_LIBRARY_DIR=",
    "export CFENGINE_TEST_OVERRIDE_WORKDIR TEMP CFENGINE_TEST_OVERRIDE_EXTENSION_LIBRARY_DIR",
    "",
    [agent, ...args].map(shellQuote).join(" "),
    "",
  ].join("\n");
  writeExecutable(dir.script, text);
  return text;
}
