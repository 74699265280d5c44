/**
 * copy_from, link_from, depth_search, file_select, delete, rename, changes
 * and transformer scenarios, run through both tend and cf-agent 3.21
 * (recorded in test/fixtures/files-copy/cf-agent.json by
 * scripts/record-copy.ts). Each is the body of `bundle agent main` (with
 * `$(d)`, the scenario's directory), extra bundles and bodies, and the
 * tree the directory starts with; the harness adds common bodies (cp,
 * ln, recurse, m, tidy...).
 */
import type { CopyScenario } from "./copy-harness.js";

const T0 = 1_600_000_000;
const T1 = 1_650_000_000;

const copies: CopyScenario[] = [
  {
    name: "copy-new-file",
    files: { src: "hello\n" },
    main: `files: "$(d)/dst" copy_from => cp("$(d)/src");`,
  },
  {
    name: "copy-new-file-in-new-directory",
    files: { src: "hello\n" },
    main: `files: "$(d)/a/b/dst" copy_from => cp("$(d)/src");`,
  },
  {
    name: "copy-digest-differs",
    files: { src: { content: "new\n", mode: 0o644 }, dst: { content: "old\n", mode: 0o664 } },
    main: `files: "$(d)/dst" copy_from => cp_digest("$(d)/src");`,
  },
  {
    name: "copy-digest-same",
    files: { src: "same\n", dst: { content: "same\n", mode: 0o640 } },
    main: `files: "$(d)/dst" copy_from => cp_digest("$(d)/src"), classes => outcome("c");
reports:
  c_kept:: "kept"; c_repaired:: "repaired";`,
  },
  {
    name: "copy-hash-differs-same-size",
    files: { src: "abcd\n", dst: "abce\n" },
    main: `files: "$(d)/dst" copy_from => cp_cmp("$(d)/src", "hash");`,
  },
  {
    name: "copy-binary-differs",
    files: { src: "12345\n", dst: "54321\n" },
    main: `files: "$(d)/dst" copy_from => cp_cmp("$(d)/src", "binary");`,
  },
  {
    name: "copy-mtime-source-newer",
    files: { src: { content: "new\n", mtime: T1 }, dst: { content: "old\n", mtime: T0 } },
    main: `files: "$(d)/dst" copy_from => cp_cmp("$(d)/src", "mtime");`,
  },
  {
    name: "copy-mtime-source-older",
    files: { src: { content: "old\n", mtime: T0 }, dst: { content: "new\n", mtime: T1 } },
    main: `files: "$(d)/dst" copy_from => cp_cmp("$(d)/src", "mtime");`,
  },
  {
    name: "copy-atime-compare",
    files: { src: { content: "aaa\n", mtime: T0 }, dst: { content: "bbb\n", mtime: T1 } },
    main: `files: "$(d)/dst" copy_from => cp_cmp("$(d)/src", "atime");`,
  },
  {
    name: "copy-exists-compare",
    files: { src: "source\n", dst: "other\n" },
    main: `files: "$(d)/dst" copy_from => cp_cmp("$(d)/src", "exists");
  "$(d)/dst2" copy_from => cp_cmp("$(d)/src", "exists");`,
  },
  {
    name: "copy-default-compare",
    files: { src: { content: "s\n", mtime: T1 }, dst: { content: "d\n", mtime: T0 } },
    main: `files: "$(d)/dst" copy_from => cp("$(d)/src");`,
  },
  {
    name: "copy-backup-false",
    files: { src: "new\n", dst: "old\n" },
    main: `files: "$(d)/dst" copy_from => nb("$(d)/src");`,
    extra: `body copy_from nb(s) { source => "$(s)"; compare => "digest"; copy_backup => "false"; }`,
  },
  {
    name: "copy-backup-timestamp",
    files: { src: "new\n", dst: "old\n" },
    main: `files: "$(d)/dst" copy_from => ts("$(d)/src");`,
    extra: `body copy_from ts(s) { source => "$(s)"; compare => "digest"; copy_backup => "timestamp"; }`,
  },
  {
    name: "copy-old-backup-replaced",
    files: { src: "new\n", dst: "old\n", "dst.cfsaved": "older\n" },
    main: `files: "$(d)/dst" copy_from => cp_digest("$(d)/src");`,
  },
  {
    name: "copy-preserve",
    files: { src: { content: "x\n", mode: 0o751 }, dst: { content: "y\n", mode: 0o600 } },
    main: `files: "$(d)/dst" copy_from => pr("$(d)/src");
  "$(d)/new" copy_from => pr("$(d)/src");`,
    extra: `body copy_from pr(s) { source => "$(s)"; compare => "digest"; preserve => "true"; }`,
  },
  {
    name: "copy-with-perms",
    files: { src: { content: "x\n", mode: 0o644 } },
    main: `files: "$(d)/dst" copy_from => cp("$(d)/src"), perms => m("0640");`,
  },
  {
    name: "copy-force-update",
    files: { src: "same\n", dst: "same\n" },
    main: `files: "$(d)/dst" copy_from => fu("$(d)/src");`,
    extra: `body copy_from fu(s) { source => "$(s)"; compare => "digest"; force_update => "true"; }`,
  },
  {
    name: "copy-verify",
    files: { src: "verified\n" },
    main: `files: "$(d)/dst" copy_from => vf("$(d)/src");`,
    extra: `body copy_from vf(s) { source => "$(s)"; verify => "true"; }`,
  },
  {
    name: "copy-stealth",
    files: { src: { content: "quiet\n", mtime: T0 } },
    main: `files: "$(d)/dst" copy_from => st("$(d)/src");`,
    extra: `body copy_from st(s) { source => "$(s)"; stealth => "true"; }`,
  },
  {
    name: "copy-size-out-of-range",
    files: { src: "0123456789\n" },
    main: `files: "$(d)/dst" copy_from => sz("$(d)/src");`,
    extra: `body copy_from sz(s) { source => "$(s)"; copy_size => irange("0", "5"); }`,
  },
  {
    name: "copy-missing-source",
    main: `files: "$(d)/dst" copy_from => cp("$(d)/nothere"), classes => outcome("c");
reports:
  c_failed:: "failed";`,
  },
  {
    name: "copy-missing-ok",
    main: `files: "$(d)/dst" copy_from => mo("$(d)/nothere"), classes => outcome("c");
reports:
  c_kept:: "kept";`,
    extra: `body copy_from mo(s) { source => "$(s)"; missing_ok => "true"; }`,
  },
  {
    name: "copy-own-source",
    files: { f: "loop\n" },
    main: `files: "$(d)/f" copy_from => cp("$(d)/f");`,
  },
  {
    name: "copy-over-symlink",
    files: { src: "real\n", target: "target\n", dst: { link: "target" } },
    main: `files: "$(d)/dst" copy_from => cp_digest("$(d)/src");`,
  },
  {
    name: "copy-over-symlink-type-check",
    files: { src: "real\n", target: "target\n", dst: { link: "target" } },
    main: `files: "$(d)/dst" copy_from => tc("$(d)/src");`,
    extra: `body copy_from tc(s) { source => "$(s)"; type_check => "true"; }`,
  },
  {
    name: "copy-warn-only",
    files: { src: "new\n", dst: "old\n" },
    main: `files: "$(d)/dst" copy_from => cp_digest("$(d)/src"), action => warn_only;
  "$(d)/fresh" copy_from => cp_digest("$(d)/src"), action => warn_only;`,
  },
  {
    name: "copy-source-symlink",
    files: { real: "real\n", src: { link: "real" } },
    main: `files: "$(d)/dst" copy_from => cp("$(d)/src");`,
  },
  {
    name: "copy-copylink-patterns",
    files: { real: "real\n", src: { link: "real" } },
    main: `files: "$(d)/dst" copy_from => cl("$(d)/src");`,
    extra: `body copy_from cl(s) { source => "$(s)"; copylink_patterns => { "src" }; }`,
  },
  {
    name: "copy-linkcopy-patterns",
    files: { src: "file\n" },
    main: `files: "$(d)/dst" copy_from => lc("$(d)/src");`,
    extra: `body copy_from lc(s) { source => "$(s)"; linkcopy_patterns => { "src" }; }`,
  },
  {
    name: "copy-linkcopy-relative",
    files: { "a/src": "file\n" },
    main: `files: "$(d)/b/dst" copy_from => lr("$(d)/a/src");`,
    extra: `body copy_from lr(s) { source => "$(s)"; linkcopy_patterns => { ".*" }; link_type => "relative"; }`,
  },
  {
    name: "copy-linkcopy-hardlink",
    files: { src: "file\n" },
    main: `files: "$(d)/dst" copy_from => lh("$(d)/src");`,
    extra: `body copy_from lh(s) { source => "$(s)"; linkcopy_patterns => { ".*" }; link_type => "hardlink"; }`,
  },
  {
    name: "copy-symlink-absolute-type",
    files: { "a/real": "real\n", "a/src": { link: "real" } },
    main: `files: "$(d)/dst" copy_from => ab("$(d)/a/src");`,
    extra: `body copy_from ab(s) { source => "$(s)"; link_type => "absolute"; }`,
  },
  {
    name: "copy-directory-without-depth-search",
    files: { "src/a": "a\n" },
    main: `files: "$(d)/dst" copy_from => cp_r("$(d)/src");`,
  },
  {
    name: "copy-recursive",
    files: { "src/a": "a\n", "src/sub/b": "b\n", "src/sub/deeper/c": "c\n", "src/ln": { link: "a" } },
    main: `files: "$(d)/dst" copy_from => cp_r("$(d)/src"), depth_search => recurse("inf");`,
  },
  {
    name: "copy-recursive-depth-1",
    files: { "src/a": "a\n", "src/sub/b": "b\n" },
    main: `files: "$(d)/dst" copy_from => cp_r("$(d)/src"), depth_search => recurse("1");`,
  },
  {
    name: "copy-recursive-purge",
    files: { "src/a": "a\n", "dst/a": "old\n", "dst/extra": "x\n", "dst/olddir/f": "f\n" },
    main: `files: "$(d)/dst" copy_from => cp_purge("$(d)/src"), depth_search => recurse("inf");`,
  },
  {
    name: "copy-purge-without-depth-search",
    files: { src: "a\n", dst: "b\n" },
    main: `files: "$(d)/dst" copy_from => cp_purge("$(d)/src");`,
  },
  {
    name: "copy-recursive-exclude-dirs",
    files: { "src/a": "a\n", "src/skip/b": "b\n", "src/keep/c": "c\n" },
    main: `files: "$(d)/dst" copy_from => cp_r("$(d)/src"), depth_search => ex;`,
    extra: `body depth_search ex { depth => "inf"; exclude_dirs => { "skip" }; }`,
  },
  {
    name: "copy-recursive-include-dirs",
    files: { "src/a": "a\n", "src/skip/b": "b\n", "src/keep/c": "c\n" },
    main: `files: "$(d)/dst" copy_from => cp_r("$(d)/src"), depth_search => inc;`,
    extra: `body depth_search inc { depth => "inf"; include_dirs => { "keep" }; }`,
  },
  {
    name: "copy-recursive-file-select",
    files: { "src/a.conf": "a\n", "src/b.txt": "b\n", "src/sub/c.conf": "c\n" },
    main: `files: "$(d)/dst" copy_from => cp_r("$(d)/src"), depth_search => recurse("inf"), file_select => by_name(".*\\.conf");`,
  },
  {
    name: "copy-collapse-destination",
    files: { "src/a": "a\n", "src/sub/b": "b\n" },
    main: `files: "$(d)/dst" copy_from => co("$(d)/src"), depth_search => recurse("inf");`,
    extra: `body copy_from co(s) { source => "$(s)"; collapse_destination_dir => "true"; }`,
  },
  {
    name: "copy-recursive-hard-links",
    files: { "src/a": "shared\n", "src/b": { hardlink: "src/a" }, "src/c": "own\n" },
    main: `files: "$(d)/dst" copy_from => cp_r("$(d)/src"), depth_search => recurse("inf");`,
  },
  {
    name: "copy-recursive-perms",
    files: { "src/a": { content: "a\n", mode: 0o644 }, "src/sub/b": { content: "b\n", mode: 0o600 } },
    main: `files: "$(d)/dst" copy_from => cp_r("$(d)/src"), depth_search => recurse("inf"), perms => m("0640");`,
  },
  {
    name: "copy-repository",
    files: { src: "new\n", dst: "old\n" },
    main: `files: "$(d)/dst" copy_from => cp_digest("$(d)/src"), repository => "$(d)/repo";`,
  },
  {
    name: "copy-fifo",
    files: { src: "x\n" },
    main: `commands: "/usr/bin/mkfifo $(d)/pipe" if => not(fileexists("$(d)/pipe"));
files: "$(d)/pipecopy" copy_from => cp("$(d)/pipe");`,
  },
];

const links: CopyScenario[] = [
  {
    name: "link-symlink-new",
    files: { target: "t\n" },
    main: `files: "$(d)/ln" link_from => ln("$(d)/target");`,
  },
  {
    name: "link-symlink-relative-text",
    files: { target: "t\n" },
    main: `files: "$(d)/ln" link_from => ln("target");`,
  },
  {
    name: "link-symlink-wrong",
    files: { target: "t\n", other: "o\n", ln: { link: "other" } },
    main: `files: "$(d)/ln" link_from => ln("$(d)/target"), classes => outcome("l");
reports:
  l_failed:: "failed";`,
  },
  {
    name: "link-symlink-wrong-move-obstructions",
    files: { target: "t\n", other: "o\n", ln: { link: "other" } },
    main: `files: "$(d)/ln" link_from => ln("$(d)/target"), move_obstructions => "true";`,
  },
  {
    name: "link-over-file",
    files: { target: "t\n", ln: "a file\n" },
    main: `files: "$(d)/ln" link_from => ln("$(d)/target");`,
  },
  {
    name: "link-over-file-move-obstructions",
    files: { target: "t\n", ln: "a file\n" },
    main: `files: "$(d)/ln" link_from => ln("$(d)/target"), move_obstructions => "true";`,
  },
  {
    name: "link-over-directory-move-obstructions",
    files: { target: "t\n", "ln/inside": "i\n" },
    main: `files: "$(d)/ln" link_from => ln("$(d)/target"), move_obstructions => "true";`,
  },
  {
    name: "link-relative",
    files: { "a/b/target": "t\n" },
    main: `files: "$(d)/c/ln" link_from => ln_type("$(d)/a/b/target", "relative");`,
  },
  {
    name: "link-absolute",
    files: { "a/target": "t\n", "a/via": { link: "target" } },
    main: `files: "$(d)/ln" link_from => ln_type("$(d)/a/via", "absolute");`,
  },
  {
    name: "link-hardlink",
    files: { target: "t\n" },
    main: `files: "$(d)/hl" link_from => ln_type("$(d)/target", "hardlink");`,
  },
  {
    name: "link-hardlink-over-file",
    files: { target: "t\n", hl: "other\n" },
    main: `files: "$(d)/hl" link_from => ln_type("$(d)/target", "hardlink"), move_obstructions => "true";`,
  },
  {
    name: "link-no-source",
    main: `files: "$(d)/ln" link_from => ln("$(d)/missing");`,
  },
  {
    name: "link-no-source-force",
    main: `files: "$(d)/ln" link_from => wn("$(d)/missing", "force");`,
    extra: `body link_from wn(s, w) { source => "$(s)"; when_no_source => "$(w)"; }`,
  },
  {
    name: "link-no-source-delete",
    files: { ln: { link: "missing" } },
    main: `files: "$(d)/ln" link_from => wn("$(d)/missing", "delete");`,
    extra: `body link_from wn(s, w) { source => "$(s)"; when_no_source => "$(w)"; }`,
  },
  {
    name: "link-children",
    files: { "src/a": "a\n", "src/b": "b\n", "src/sub/c": "c\n", "dst/b": "mine\n" },
    main: `files: "$(d)/dst" link_from => lk("$(d)/src");`,
    extra: `body link_from lk(s) { source => "$(s)"; link_children => "true"; }`,
  },
  {
    name: "link-children-override",
    files: { "src/a": "a\n", "src/b": "b\n", "dst/b": "mine\n" },
    main: `files: "$(d)/dst" link_from => lo("$(d)/src");`,
    extra: `body link_from lo(s) { source => "$(s)"; link_children => "true"; when_linking_children => "override_file"; }`,
  },
  {
    name: "link-copy-patterns",
    files: { target: "t\n" },
    main: `files: "$(d)/copy.conf" link_from => lp("$(d)/target");
  "$(d)/ln" link_from => lp("$(d)/target");`,
    extra: `body link_from lp(s) { source => "$(s)"; copy_patterns => { ".*\\.conf" }; }`,
  },
];

const searches: CopyScenario[] = [
  {
    name: "depth-search-perms",
    files: { "t/a": { content: "a\n", mode: 0o600 }, "t/sub/b": { content: "b\n", mode: 0o666 } },
    main: `files: "$(d)/t" perms => m("0640"), depth_search => recurse("inf");`,
  },
  {
    name: "depth-search-perms-include-basedir",
    files: { "t/a": { content: "a\n", mode: 0o600 }, "t/sub": { dir: true, mode: 0o700 } },
    main: `files: "$(d)/t" perms => mr("0755"), depth_search => recurse_base("inf");`,
  },
  {
    name: "depth-search-depth-1",
    files: { "t/a": { content: "a\n", mode: 0o600 }, "t/sub/b": { content: "b\n", mode: 0o600 } },
    main: `files: "$(d)/t" perms => m("0644"), depth_search => recurse("1");`,
  },
  {
    name: "depth-search-delete-selected",
    files: { "t/a.log": "a\n", "t/b.txt": "b\n", "t/sub/c.log": "c\n" },
    main: `files: "$(d)/t" delete => tidy, depth_search => recurse("inf"), file_select => by_name(".*\\.log");`,
  },
  {
    name: "depth-search-rmdeadlinks",
    files: { "t/a": "a\n", "t/dead": { link: "nothere" }, "t/alive": { link: "a" } },
    main: `files: "$(d)/t" perms => m("0600"), depth_search => rd;`,
    extra: `body depth_search rd { depth => "inf"; rmdeadlinks => "true"; }`,
  },
  {
    name: "depth-search-exclude-dirs",
    files: { "t/a": { content: "a\n", mode: 0o600 }, "t/skip/b": { content: "b\n", mode: 0o600 } },
    main: `files: "$(d)/t" perms => m("0644"), depth_search => ex;`,
    extra: `body depth_search ex { depth => "inf"; exclude_dirs => { "skip" }; }`,
  },
  {
    name: "depth-search-delete-dirs",
    files: { "t/empty/x": { dir: true }, "t/full/f": "f\n" },
    main: `files: "$(d)/t" delete => tidy, depth_search => recurse("inf"), file_select => all;`,
    extra: `body file_select all { leaf_name => { ".*" }; file_result => "leaf_name"; }`,
  },
  {
    name: "select-file-types",
    files: {
      "t/f": { content: "f\n", mode: 0o600 },
      "t/dir": { dir: true, mode: 0o700 },
      "t/ln": { link: "f" },
    },
    main: `files: "$(d)/t" perms => m("0604"), depth_search => recurse("inf"), file_select => plain;`,
  },
  {
    name: "select-symlink-target",
    files: { "t/a": "a\n", "t/to-a": { link: "a" }, "t/to-b": { link: "b" } },
    main: `files: "$(d)/t" delete => tidy, depth_search => recurse("inf"), file_select => sl;`,
    extra: `body file_select sl { issymlinkto => { "a" }; file_result => "issymlinkto"; }`,
  },
  {
    name: "select-size-and-mode",
    files: {
      "t/small": { content: "1\n", mode: 0o644 },
      "t/big": { content: "0123456789abcdef\n", mode: 0o644 },
      "t/private": { content: "0123456789abcdef\n", mode: 0o600 },
    },
    main: `files: "$(d)/t" delete => tidy, depth_search => recurse("inf"), file_select => sm;`,
    extra: `body file_select sm { search_size => irange("10", "100"); search_mode => { "644" }; file_result => "size.mode"; }`,
  },
  {
    name: "select-mtime",
    files: { "t/old": { content: "o\n", mtime: T0 }, "t/new": "n\n" },
    main: `files: "$(d)/t" delete => tidy, depth_search => recurse("inf"), file_select => mt;`,
    extra: `body file_select mt { mtime => irange("0", "${T1}"); file_result => "mtime"; }`,
  },
  {
    name: "select-path-name-and-not",
    files: { "t/a/x": "x\n", "t/b/x": "x\n", "t/b/y": "y\n" },
    main: `files: "$(d)/t" delete => tidy, depth_search => recurse("inf"), file_select => pn;`,
    extra: `body file_select pn { path_name => { "/.*/b/.*" }; leaf_name => { "y" }; file_result => "path_name.!leaf_name"; }`,
  },
  {
    name: "select-exec-program",
    files: { "t/keep": "keep\n", "t/drop": "drop me\n" },
    main: `files: "$(d)/t" delete => tidy, depth_search => recurse("inf"), file_select => ep;`,
    extra: `body file_select ep { exec_program => "/bin/sh -c 'grep -q drop $(this.promiser) 2>/dev/null'"; file_result => "exec_program"; }`,
  },
  {
    name: "select-leaf-on-promiser",
    files: { a: { content: "a\n", mode: 0o600 }, b: { content: "b\n", mode: 0o600 } },
    main: `files: "$(d)/a" perms => m("0644"), file_select => by_name("b");
  "$(d)/b" perms => m("0644"), file_select => by_name("b");`,
  },
];

const others: CopyScenario[] = [
  {
    name: "delete-file-and-dirs",
    files: { f: "f\n", empty: { dir: true }, full: { dir: true }, "full/x": "x\n", ln: { link: "f" } },
    main: `files: "$(d)/f" delete => tidy;
  "$(d)/empty/." delete => tidy;
  "$(d)/full/." delete => tidy;
  "$(d)/ln" delete => tidy;
  "$(d)/nothere" delete => tidy, classes => outcome("n");
reports:
  n_kept:: "missing kept";`,
  },
  {
    name: "delete-directory-without-rmdirs",
    files: { empty: { dir: true } },
    main: `files: "$(d)/empty/." delete => keepdirs;`,
  },
  {
    name: "rename-disable",
    files: { f: { content: "f\n", mode: 0o644 }, ln: { link: "f" } },
    main: `files: "$(d)/f" rename => dis;
  "$(d)/ln" rename => dis;`,
    extra: `body rename dis { disable => "true"; }`,
  },
  {
    name: "rename-disable-mode-suffix",
    files: { f: { content: "f\n", mode: 0o644 } },
    main: `files: "$(d)/f" rename => dis;`,
    extra: `body rename dis { disable => "true"; disable_mode => "0400"; disable_suffix => ".off"; }`,
  },
  {
    name: "rename-newname",
    files: { f: "f\n" },
    main: `files: "$(d)/f" rename => nn;`,
    extra: `body rename nn { newname => "g"; }`,
  },
  {
    name: "rename-rotate",
    files: { log: "current\n", "log.1": "older\n", "log.2": "oldest\n" },
    main: `files: "$(d)/log" rename => rot;`,
    extra: `body rename rot { rotate => "2"; }`,
  },
  {
    name: "changes-md5-and-stats",
    files: { f: "watched\n" },
    main: `files: "$(d)/f" changes => watch("md5");`,
  },
  {
    name: "changes-sha256-best",
    files: { f: "watched\n", g: "also\n" },
    main: `files: "$(d)/f" changes => watch("sha256");
  "$(d)/g" changes => watch("best");`,
  },
  {
    name: "changes-missing-file",
    main: `files: "$(d)/nothere" changes => watch("md5");`,
  },
  {
    name: "transformer-depth-search",
    files: { "t/a": "a\n", "t/b": "b\n" },
    main: `files: "$(d)/t" transformer => "/usr/bin/gzip -n $(this.promiser)", depth_search => recurse("inf"), file_select => plain;`,
  },
  {
    name: "create-fifo",
    main: `files: "$(d)/pipe" create => "true", file_type => "fifo";`,
  },
  {
    name: "create-directory-with-depth-search",
    main: `files: "$(d)/newdir" create => "true", depth_search => recurse("1");`,
  },
  {
    name: "perms-owner-through-symlink",
    files: {
      target: { content: "t\n", uid: 2 },
      link: { link: "target" },
      other: { content: "o\n", uid: 2 },
    },
    main: `files: "$(d)/link" perms => own("0");
  "$(d)/other" perms => own("0");`,
    extra: `body perms own(u) { owners => { "$(u)" }; }`,
  },
  {
    name: "copy-preserve-owner",
    files: { src: { content: "s\n", uid: 2, mode: 0o640 } },
    main: `files: "$(d)/dst" copy_from => pr("$(d)/src");`,
    extra: `body copy_from pr(s) { source => "$(s)"; preserve => "true"; }`,
  },
  {
    name: "untrusted-symlink-in-path",
    files: {
      rootdir: { dir: true },
      evil: { link: "rootdir", uid: 2 },
      userdir: { dir: true, uid: 2 },
      ok: { link: "userdir", uid: 2 },
      src: "s\n",
    },
    main: `files: "$(d)/evil/file" create => "true";
  "$(d)/evil/c" content => "x";
  "$(d)/evil/cp" copy_from => cp("$(d)/src");
  "$(d)/ok/file" create => "true";
  "$(d)/ok/cp" copy_from => cp("$(d)/src");`,
  },
  {
    name: "perms-existing-and-created",
    files: { f: { content: "f\n", mode: 0o600 } },
    main: `files: "$(d)/f" perms => m("0644");
  "$(d)/g" create => "true", perms => m("0640");`,
  },
];

const patterns: CopyScenario[] = [
  {
    name: "regex-promiser-perms",
    files: {
      "a.conf": { content: "a\n", mode: 0o644 },
      "b.conf": { content: "b\n", mode: 0o600 },
      "c.txt": "c\n",
    },
    main: `files: "$(d)/.*\\.conf" perms => m("0600"), classes => outcome("r");
reports:
  r_kept:: "kept"; r_repaired:: "repaired";`,
  },
  {
    name: "regex-promiser-match-groups",
    files: { app_one: "1\n", app_two: "2\n" },
    main: `files: "$(d)/app_(.*)" perms => m("0640"), classes => named;
vars:
  "found" slist => sort(classesmatching("got_.*"), "lex");
reports:
  "class $(found)";`,
    extra: `body classes named { promise_repaired => { "got_$(match.1)" }; }`,
  },
  {
    name: "regex-promiser-classes-of-pattern",
    files: { a1: { content: "1\n", mode: 0o600 }, a2: { content: "2\n", mode: 0o644 } },
    main: `files: "$(d)/a[0-9]" perms => m("0644"), classes => each;
vars:
  "found" slist => sort(classesmatching("(kept|fixed)_.*"), "lex");
reports:
  "class $(found)";`,
    extra: `body classes each { promise_kept => { "kept_$(this.promiser)" }; promise_repaired => { "fixed_$(this.promiser)" }; }`,
  },
  {
    name: "regex-promiser-no-match-create",
    main: `files: "$(d)/x.*y" create => "true";`,
  },
  {
    name: "regex-promiser-missing-directory",
    main: `files: "$(d)/nodir/.*" perms => m("0600"), classes => outcome("r");
reports:
  r_kept:: "kept"; r_failed:: "failed";`,
  },
  {
    name: "classes-kept-and-repaired",
    files: { f: { content: "f\n", mode: 0o600 } },
    main: `files: "$(d)/f" create => "true", perms => m("0644"), classes => outcome("f");
reports:
  f_kept:: "kept"; f_repaired:: "repaired";`,
  },
  {
    name: "depth-search-classes-per-leaf",
    files: { "t/a": { content: "a\n", mode: 0o600 }, "t/b": { content: "b\n", mode: 0o644 } },
    main: `files: "$(d)/t" perms => m("0644"), depth_search => recurse("inf"), classes => leaf;
vars:
  "found" slist => sort(classesmatching("fixed_.*"), "lex");
reports:
  "class $(found)";`,
    extra: `body classes leaf { promise_repaired => { "fixed_$(this.promiser)" }; }`,
  },
  {
    name: "changes-depth-search",
    files: { "t/a": "a\n", "t/sub/b": "b\n" },
    main: `files: "$(d)/t" changes => watch("md5"), depth_search => recurse("inf");`,
  },
  {
    name: "link-children-recursive",
    files: { "src/a": "a\n", "src/sub/b": "b\n", "src/sub/deeper/c": "c\n" },
    main: `files: "$(d)/dst" link_from => lk("$(d)/src"), depth_search => recurse("2");`,
    extra: `body link_from lk(s) { source => "$(s)"; link_children => "true"; }`,
  },
  {
    name: "copy-recursive-absolute-links",
    files: { "src/a": "a\n", "src/la": { link: "a" }, "src/dead": { link: "nothere" } },
    main: `files: "$(d)/dst" copy_from => ab("$(d)/src"), depth_search => recurse("inf");`,
    extra: `body copy_from ab(s) { source => "$(s)"; link_type => "absolute"; }`,
  },
];

export const copyScenarios: readonly CopyScenario[] = [
  ...copies,
  ...links,
  ...searches,
  ...others,
  ...patterns,
];
