/**
 * Edit scenarios run through both tend and cf-agent 3.21 (recorded in
 * test/fixtures/edit/cf-agent.json by scripts/record-edit.ts): each is the
 * body of `bundle agent main` (with `$(d)`, the scenario's directory),
 * extra bundles and bodies, and the files the directory starts with
 * (a value `->target` makes a symbolic link). The harness adds common
 * bodies (location, select_region, replace_with, edit_defaults...).
 */

export interface Scenario {
  readonly name: string;
  readonly files?: Readonly<Record<string, string>>;
  readonly modes?: Readonly<Record<string, number>>;
  readonly main: string;
  readonly extra?: string;
}

const LINES = "alpha\nbeta\ngamma\n";

const insert: Scenario[] = [
  {
    name: "insert-append",
    files: { f: LINES },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: `bundle edit_line ins { insert_lines: "delta"; "beta"; }`,
  },
  {
    name: "insert-start",
    files: { f: LINES },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: `bundle edit_line ins { insert_lines: "top" location => start; "alpha" location => start; }`,
  },
  {
    name: "insert-after-before-locator",
    files: { f: "k=1\nx\nk=2\ny\n" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: String.raw`bundle edit_line ins {
insert_lines:
  "after-last" location => after("k=.*");
  "after-first" location => after_first("k=.*");
  "before-last" location => before("k=.*");
  "before-first" location => before_first("k=.*");
}`,
  },
  {
    name: "insert-neighbour-exists",
    files: { f: "a\nb\nc\n" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: `bundle edit_line ins { insert_lines: "b" location => after("a"); "a" location => before("b"); "x" location => after("c"); }`,
  },
  {
    name: "insert-locator-missing",
    files: { f: LINES },
    main: `files: "$(d)/f" edit_line => ins, classes => outcome("f");
reports: 
  f_failed:: "failed"; f_repaired:: "repaired"; f_kept:: "kept";`,
    extra: `bundle edit_line ins { insert_lines: "z" location => after("nothere"), classes => outcome("p"); }`,
  },
  {
    name: "insert-multiline-chunk",
    files: { f: "one\ntwo\nthree" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: `bundle edit_line ins {
insert_lines:
  "one
x1
two";
  "p1
p2" location => start;
}`,
  },
  {
    name: "insert-preserve-block",
    files: { f: "x\n" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: `bundle edit_line ins {
insert_lines:
  "b1
x
b2" insert_type => "preserve_block";
  "s1
s2" insert_type => "preserve_block", location => start;
}`,
  },
  {
    name: "insert-preserve-all-lines",
    files: { f: "a\n" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: `bundle edit_line ins {
insert_lines:
  "a" insert_type => "preserve_all_lines";
  "dup
dup" insert_type => "preserve_all_lines";
}`,
  },
  {
    name: "insert-list-iteration",
    files: { f: "b\n" },
    main: `vars: "l" slist => { "a", "b", "c" };
files: "$(d)/f" edit_line => ins(@(l));`,
    extra: `bundle edit_line ins(l) { insert_lines: "$(l)"; "item $(l)" location => start; }`,
  },
  {
    name: "insert-file",
    files: { f: "keep\nb\n", src: "a\nb\nc\n" },
    main: `files: "$(d)/f" edit_line => ins("$(d)/src");`,
    extra: `bundle edit_line ins(s) { insert_lines: "$(s)" insert_type => "file"; }`,
  },
  {
    name: "insert-file-preserve-block",
    files: { f: "keep\nb\n", src: "a\nb\nc\n" },
    main: `files: "$(d)/f" edit_line => ins("$(d)/src");`,
    extra: `bundle edit_line ins(s) { insert_lines: "$(s)" insert_type => "file_preserve_block", location => start; }`,
  },
  {
    name: "insert-file-expand-scalars",
    files: { f: "", src: "name=$(main.who)\nplain\n" },
    main: `vars: "who" string => "tend";
files: "$(d)/f" edit_line => ins("$(d)/src");`,
    extra: `bundle edit_line ins(s) { insert_lines: "$(s)" insert_type => "file", expand_scalars => "true"; }`,
  },
  {
    name: "insert-file-missing",
    files: { f: "a\n" },
    main: `files: "$(d)/f" edit_line => ins("$(d)/nosuch");`,
    extra: `bundle edit_line ins(s) { insert_lines: "$(s)" insert_type => "file"; }`,
  },
  {
    name: "insert-select-startwith",
    files: { f: "" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: `bundle edit_line ins {
insert_lines:
  "#c1
v1
#c2
v2" insert_select => sel;
}
body insert_select sel { insert_if_startwith_from_list => { "#" }; }`,
  },
  {
    name: "insert-select-not-match",
    files: { f: "" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: String.raw`bundle edit_line ins {
insert_lines:
  "#c1
v1
  
v2" insert_select => sel;
}
body insert_select sel { insert_if_not_match_from_list => { "#.*", "\s*" }; }`,
  },
  {
    name: "insert-select-contains",
    files: { f: "" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: String.raw`bundle edit_line ins {
insert_lines:
  "key=1
other
key2=3" insert_select => sel;
  "a1
b2" insert_select => notsel;
}
body insert_select sel { insert_if_contains_from_list => { "=\d" }; }
body insert_select notsel { insert_if_not_contains_from_list => { "2" }; }`,
  },
  {
    name: "insert-whitespace-policy",
    files: { f: "  indented line\ntrailing   \nin  the   middle\n" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: `bundle edit_line ins {
insert_lines:
  "indented line" whitespace_policy => { "ignore_leading" };
  "trailing" whitespace_policy => { "ignore_trailing" };
  "trailing   " whitespace_policy => { "ignore_trailing" };
  "in the middle" whitespace_policy => { "ignore_embedded" };
  "  in the middle  " whitespace_policy => { "ignore_leading", "ignore_embedded" };
  "exact" whitespace_policy => { "exact_match" };
}`,
  },
  {
    name: "insert-whitespace-policy-dots",
    files: { f: "a.b = 1\nc*d\n" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: `bundle edit_line ins {
insert_lines:
  "a.b   =   1" whitespace_policy => { "ignore_embedded" };
  "axb = 1" whitespace_policy => { "ignore_embedded" };
  "  c*d" whitespace_policy => { "ignore_leading" };
}`,
  },
  {
    name: "insert-region-end",
    files: { f: "[a]\nx=1\n[b]\ny=2\n" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: String.raw`bundle edit_line ins {
insert_lines:
  "x=2" select_region => region("\[a\]", "\[.*\]");
  "y=1" select_region => region("\[b\]", "\[.*\]");
  "y=3" select_region => region_eof("\[b\]", "\[.*\]");
  "z=1" select_region => region_start("\[b\]");
}`,
  },
  {
    name: "insert-region-before-and-locator",
    files: { f: "head\n[a]\nx=1\n[b]\ny=2\n" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: String.raw`bundle edit_line ins {
insert_lines:
  "first" select_region => region("\[a\]", "\[.*\]"), location => start;
  "after-x" select_region => region("\[a\]", "\[.*\]"), location => after("x=.*");
  "missing" select_region => region("\[c\]", "\[.*\]");
}`,
  },
  {
    name: "insert-empty-and-new-file",
    files: { empty: "" },
    main: `files:
  "$(d)/empty" edit_line => ins;
  "$(d)/new" create => "true", edit_line => ins;
  "$(d)/absent" edit_line => ins;`,
    extra: `bundle edit_line ins { insert_lines: "b" location => start; "a" location => start; "c"; }`,
  },
  {
    name: "insert-special-characters",
    files: { f: "a+b\n" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: String.raw`bundle edit_line ins {
insert_lines:
  "a+b";
  "path\\to\\thing";
  "quote \"x\" and 'y'";
  "tab	here";
  "caf\u00e9 $(const.dollar)(x)";
}`,
  },
  {
    name: "insert-crlf-file",
    files: { f: "one\r\ntwo\r\n" },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: `bundle edit_line ins { insert_lines: "two"; "three"; }`,
  },
  {
    name: "no-final-newline-kept",
    files: { f: "a\nb", g: "a\nb" },
    main: `files: "$(d)/f" edit_line => ins; "$(d)/g" edit_line => ins2;`,
    extra: `bundle edit_line ins { insert_lines: "a"; }
bundle edit_line ins2 { insert_lines: "c"; }`,
  },
  {
    name: "insert-warn-only",
    files: { f: LINES },
    main: `files: "$(d)/f" edit_line => ins;`,
    extra: `bundle edit_line ins { insert_lines: "delta" action => warn_only; "epsilon"; }`,
  },
  {
    name: "files-warn-only-diff",
    files: { f: LINES },
    main: `files: "$(d)/f" edit_line => ins, action => warn_only;`,
    extra: `bundle edit_line ins { insert_lines: "delta"; delete_lines: "beta"; }`,
  },
  {
    name: "edit-classes-kept-and-repaired",
    files: { f: "a\n" },
    main: `files: "$(d)/f" edit_line => ins, classes => outcome("file");
reports: 
  file_kept:: "file kept"; file_repaired:: "file repaired"; p_kept:: "p kept"; p_repaired:: "p repaired";`,
    extra: `bundle edit_line ins { insert_lines: "a
b" classes => outcome("p"); }`,
  },
  {
    name: "edit-line-twice-same-bundle",
    files: { f: "a\n" },
    main: `files:
  "$(d)/f" edit_line => ins("x");
  "$(d)/f" edit_line => ins("x"), classes => outcome("second");
reports: 
  second_kept:: "second kept"; second_repaired:: "second repaired";`,
    extra: `bundle edit_line ins(x) { insert_lines: "$(x)"; "$(x)"; }`,
  },
  {
    name: "edit-symlink-target",
    files: { target: "a\n", link: "->target" },
    main: `files: "$(d)/link" edit_line => ins;`,
    extra: `bundle edit_line ins { insert_lines: "b"; }`,
  },
  {
    name: "edit-keeps-mode",
    files: { f: "a\n" },
    modes: { f: 0o640 },
    main: `files: "$(d)/f" edit_line => ins, perms => m("644");`,
    extra: `bundle edit_line ins { insert_lines: "b"; }`,
  },
  {
    name: "edit-vars-classes-reports-in-bundle",
    files: { f: "a\n" },
    main: `files: "$(d)/f" edit_line => ins("p");`,
    extra: `bundle edit_line ins(x) {
vars: "v" string => "$(x)-value";
classes: "have_a" expression => regline("a", "$(edit.filename)");
insert_lines: 
  have_a:: "$(v)";
reports: "editing $(edit.filename) empty=$(edit.empty_before_use)";
}`,
  },
];

const remove: Scenario[] = [
  {
    name: "delete-regex",
    files: { f: "# comment\nkeep\n#another\n  # indented\n" },
    main: `files: "$(d)/f" edit_line => del;`,
    extra: `bundle edit_line del { delete_lines: "#.*"; "nothing"; }`,
  },
  {
    name: "delete-not-matching",
    files: { f: "a1\nb2\na3\n" },
    main: `files: "$(d)/f" edit_line => del;`,
    extra: `bundle edit_line del { delete_lines: "a.*" not_matching => "true"; }`,
  },
  {
    name: "delete-multiline",
    files: { f: "x\nBEGIN\nmid\nEND\ny\nBEGIN\nother\nEND\n" },
    main: `files: "$(d)/f" edit_line => del;`,
    extra: `bundle edit_line del { delete_lines: "BEGIN
mid
END"; }`,
  },
  {
    name: "delete-literal-equality",
    files: { f: "a+b\naab\n(x\n" },
    main: `files: "$(d)/f" edit_line => del;`,
    extra: `bundle edit_line del { delete_lines: "a+b"; "(x"; }`,
  },
  {
    name: "delete-select",
    files: { f: "keep me\ndrop this\nDROP too\nother\n" },
    main: `files: "$(d)/f" edit_line => del;`,
    extra: `bundle edit_line del {
delete_lines:
  ".*" delete_select => starts;
  ".*" delete_select => contains;
}
body delete_select starts { delete_if_startwith_from_list => { "drop" }; }
body delete_select contains { delete_if_contains_from_list => { "OP" }; }`,
  },
  {
    name: "delete-select-negated",
    files: { f: "a\nb\nc\n" },
    main: `files: "$(d)/f" edit_line => del;`,
    extra: `bundle edit_line del { delete_lines: ".*" delete_select => keep; }
body delete_select keep { delete_if_not_match_from_list => { "a", "c" }; }`,
  },
  {
    name: "delete-region",
    files: { f: "x=0\n[s]\nx=1\ny=1\n[t]\nx=2\n" },
    main: `files: "$(d)/f" edit_line => del;`,
    extra: String.raw`bundle edit_line del { delete_lines: "x=.*" select_region => region("\[s\]", "\[.*\]"); }`,
  },
  {
    name: "delete-region-included",
    files: { f: "a\nSTART\nb\nEND\nc\n" },
    main: `files: "$(d)/f" edit_line => del;`,
    extra: `bundle edit_line del { delete_lines: ".*" select_region => region_incl("START", "END"); }`,
  },
  {
    name: "delete-region-missing",
    files: { f: "a\nb\n" },
    main: `files: "$(d)/f" edit_line => del;`,
    extra: `bundle edit_line del {
delete_lines:
  ".*" select_region => region("START", "END");
  ".*" select_region => region_incl("START", "END");
  "a" select_region => region("a", "END");
}`,
  },
  {
    name: "delete-everything",
    files: { f: "a\nb\n" },
    main: `files: "$(d)/f" edit_line => del;`,
    extra: `bundle edit_line del { delete_lines: ".*"; }`,
  },
];

const replace: Scenario[] = [
  {
    name: "replace-simple",
    files: { f: "color=red\nother=red red\n" },
    main: `files: "$(d)/f" edit_line => rep;`,
    extra: `bundle edit_line rep { replace_patterns: "red" replace_with => value("blue"); }`,
  },
  {
    name: "replace-groups",
    files: { f: "name = value\nkey= v2\n" },
    main: `files: "$(d)/f" edit_line => rep;`,
    extra: String.raw`bundle edit_line rep { replace_patterns: "^(\w+)\s*=\s*(\w+)$" replace_with => value("$(match.2):$(match.1)"); }`,
  },
  {
    name: "replace-first",
    files: { f: "a a a\na\n" },
    main: `files: "$(d)/f" edit_line => rep;`,
    extra: `bundle edit_line rep { replace_patterns: "a" replace_with => first("b"); }`,
  },
  {
    name: "replace-not-convergent",
    files: { f: "foo\nbar\n" },
    main: `files: "$(d)/f" edit_line => rep, classes => outcome("f");
reports: 
  f_failed:: "failed"; f_repaired:: "repaired";`,
    extra: `bundle edit_line rep { replace_patterns: "o" replace_with => value("oo"); }`,
  },
  {
    name: "replace-still-matches",
    files: { f: "ab\n" },
    main: `files: "$(d)/f" edit_line => rep;`,
    extra: `bundle edit_line rep { replace_patterns: "^ab$" replace_with => value("ab"); "^x.*$" replace_with => value("xx"); }`,
  },
  {
    name: "replace-negative-lookahead",
    files: { f: "PermitRootLogin yes\n#PermitRootLogin no\n" },
    main: `files: "$(d)/f" edit_line => rep;`,
    extra: String.raw`bundle edit_line rep { replace_patterns: "^PermitRootLogin (?!no$).*" replace_with => value("PermitRootLogin no"); }`,
  },
  {
    name: "replace-region",
    files: { f: "x=1\n[s]\nx=1\n[t]\nx=1\n" },
    main: `files: "$(d)/f" edit_line => rep;`,
    extra: String.raw`bundle edit_line rep { replace_patterns: "x=1" replace_with => value("x=2"), select_region => region("\[s\]", "\[.*\]"); }`,
  },
  {
    name: "replace-empty-and-no-value",
    files: { f: "a-b-c\n" },
    main: `files: "$(d)/f" edit_line => rep;`,
    extra: `bundle edit_line rep { replace_patterns: "-" replace_with => value(""); "b" comment => "no value"; }`,
  },
];

const fields: Scenario[] = [
  {
    name: "fields-set-whole",
    files: { f: "root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000::/home/user:/bin/sh\n" },
    main: `files: "$(d)/f" edit_line => fe;`,
    extra: `bundle edit_line fe { field_edits: "user:.*" edit_field => col(":", "7", "/bin/zsh", "set"); }
body edit_field col(s, n, v, op) { field_separator => "$(s)"; select_field => "$(n)"; field_value => "$(v)"; field_operation => "$(op)"; }`,
  },
  {
    name: "fields-append-subvalue",
    files: { f: "group:x:10:alice,bob\nother:x:11:\n" },
    main: `files: "$(d)/f" edit_line => fe;`,
    extra: `bundle edit_line fe {
field_edits:
  "group:.*" edit_field => sub(":", "4", "carol", "append");
  "other:.*" edit_field => sub(":", "4", "dave", "append");
}
body edit_field sub(s, n, v, op) { field_separator => "$(s)"; select_field => "$(n)"; field_value => "$(v)"; field_operation => "$(op)"; value_separator => ","; allow_blank_fields => "true"; extend_fields => "true"; }`,
  },
  {
    name: "fields-subvalue-operations",
    files: { f: "a:c,b\nb:c,b\nc:c,b,c\nd:c,b\ne:c,b\n" },
    main: `files: "$(d)/f" edit_line => fe;`,
    extra: `bundle edit_line fe {
field_edits:
  "a:.*" edit_field => sub("prepend", "a");
  "b:.*" edit_field => sub("alphanum", "a");
  "c:.*" edit_field => sub("delete", "c");
  "d:.*" edit_field => sub("set", "z");
  "e:.*" edit_field => sub("append", "b");
}
body edit_field sub(op, v) { field_separator => ":"; select_field => "2"; field_value => "$(v)"; field_operation => "$(op)"; value_separator => ","; }`,
  },
  {
    name: "fields-delete-whole-and-extend",
    files: { f: "k v1 v2\nshort\n" },
    main: `files: "$(d)/f" edit_line => fe;`,
    extra: String.raw`bundle edit_line fe {
field_edits:
  "k .*" edit_field => col("\s+", "2", "x", "delete", "false");
  "short" edit_field => col("\s+", "4", "new", "set", "true");
}
body edit_field col(s, n, v, op, ext) { field_separator => "$(s)"; select_field => "$(n)"; field_value => "$(v)"; field_operation => "$(op)"; extend_fields => "$(ext)"; }`,
  },
  {
    name: "fields-too-few-and-no-match",
    files: { f: "a:b\n" },
    main: `files: "$(d)/f" edit_line => fe;`,
    extra: `bundle edit_line fe {
field_edits:
  "a:.*" edit_field => col("5");
  "zzz.*" edit_field => col("1");
}
body edit_field col(n) { field_separator => ":"; select_field => "$(n)"; field_value => "v"; }`,
  },
  {
    name: "fields-from-zero-blanks-quotes",
    files: { f: 'a::"q":d\n' },
    main: `files: "$(d)/f" edit_line => fe;`,
    extra: `bundle edit_line fe {
field_edits:
  "a:.*" edit_field => col;
}
body edit_field col { field_separator => ":"; select_field => "0"; start_fields_from_zero => "true"; field_value => "A"; field_operation => "set"; }`,
  },
  {
    name: "fields-missing-attributes",
    files: { f: "a:b\n" },
    main: `files: "$(d)/f" edit_line => fe;`,
    extra: `bundle edit_line fe { field_edits: "a:.*" edit_field => nosep; }
body edit_field nosep { select_field => "1"; field_value => "x"; }`,
  },
];

const defaults: Scenario[] = [
  {
    name: "defaults-empty-before-editing",
    files: { f: "old1\nold2\n" },
    main: `files: "$(d)/f" edit_line => ins, edit_defaults => empty;`,
    extra: `bundle edit_line ins { insert_lines: "new1"; "old2"; }`,
  },
  {
    name: "defaults-no-backup",
    files: { f: "a\n" },
    main: `files: "$(d)/f" edit_line => ins, edit_defaults => nobackup;`,
    extra: `bundle edit_line ins { insert_lines: "b"; }`,
  },
  {
    name: "defaults-timestamp-backup",
    files: { f: "a\n" },
    main: `files: "$(d)/f" edit_line => ins, edit_defaults => stamp;`,
    extra: `bundle edit_line ins { insert_lines: "b"; }
body edit_defaults stamp { edit_backup => "timestamp"; }`,
  },
  {
    name: "defaults-rotate",
    files: { f: "a\n", "f.cf-before-edit.1": "older\n" },
    main: `vars: "n" slist => { "1", "2", "3" };
files: "$(d)/f" edit_line => ins("line$(n)"), edit_defaults => rot;`,
    extra: `bundle edit_line ins(x) { insert_lines: "$(x)"; }
body edit_defaults rot { edit_backup => "rotate"; rotate => "2"; }`,
  },
  {
    name: "defaults-max-file-size",
    files: { big: "0123456789\n0123456789\n", small: "a\n" },
    main: `files: "$(d)/big" edit_line => ins, edit_defaults => limit; "$(d)/small" edit_line => ins, edit_defaults => limit;`,
    extra: `bundle edit_line ins { insert_lines: "x"; }
body edit_defaults limit { max_file_size => "12"; }`,
  },
  {
    name: "defaults-recognize-join",
    files: { f: "a \\\nb\nc\\\nd\n" },
    main: `files: "$(d)/f" edit_line => ins, edit_defaults => join;`,
    extra: `bundle edit_line ins { insert_lines: "z"; }
body edit_defaults join { recognize_join => "true"; }`,
  },
  {
    name: "defaults-inherit-classes",
    files: { f: "" },
    main: `classes: "local_one" expression => "any";
files: "$(d)/f" edit_line => ins, edit_defaults => inherit; "$(d)/g" create => "true", edit_line => ins;`,
    extra: `bundle edit_line ins { insert_lines: 
  local_one:: "inherited"; !local_one:: "not inherited"; }
body edit_defaults inherit { inherit => "true"; }`,
  },
  {
    name: "edit-directory-and-missing",
    files: {},
    main: `files: "$(d)/." edit_line => ins; "$(d)/nofile" edit_line => ins, create => "false";`,
    extra: `bundle edit_line ins { insert_lines: "x"; }`,
  },
];

const cfTemplates: Scenario[] = [
  {
    name: "cftemplate-basic",
    files: {
      t: "# managed\nhost=$(main.host)x $(sys.nosuchvar)\n[%CFEngine BEGIN %]\nblock 1\n\nblock 2\n\n[%CFEngine END %]\nafter\n",
    },
    main: `vars: "host" string => "example.org";
files: "$(d)/out" create => "true", edit_template => "$(d)/t";`,
  },
  {
    name: "cftemplate-classes-and-lists",
    files: {
      t: "[%CFEngine any:: %]\nall\n[%CFEngine nosuchclass:: %]\nhidden\n[%CFEngine any:: %]\nitem $(main.l)\nsame\nsame\n[%CFEngine local_c:: %]\nlocal\n",
    },
    main: `vars: "l" slist => { "x", "y" };
classes: "local_c" expression => "any";
files: "$(d)/out" create => "true", edit_template => "$(d)/t";`,
  },
  {
    name: "cftemplate-existing-file-replaced",
    files: { out: "old content\nmore\n", t: "new\n" },
    main: `files: "$(d)/out" edit_template => "$(d)/t";`,
  },
  {
    name: "cftemplate-errors",
    files: { bad: "[%CFEngine BEGIN %]\n[%CFEngine BEGIN %]\nx\n", bad2: "[%CFEngine any::\nx\n" },
    main: `files:
  "$(d)/o1" create => "true", edit_template => "$(d)/bad";
  "$(d)/o2" create => "true", edit_template => "$(d)/bad2";
  "$(d)/o3" create => "true", edit_template => "$(d)/missing";`,
  },
  {
    name: "cftemplate-empty",
    files: { t: "", out: "was here\n" },
    main: `files: "$(d)/out" edit_template => "$(d)/t";`,
  },
];

const mustache: Scenario[] = [
  {
    name: "mustache-file-with-data",
    files: { t: "{{#users}}\nuser {{name}} ({{uid}})\n{{/users}}\n{{^none}}none is empty{{/none}}\n" },
    main: `vars: "data" data => '{ "users": [ { "name": "a<b", "uid": 1 }, { "name": "c", "uid": 2 } ], "none": [] }';
files: "$(d)/out" create => "true", edit_template => "$(d)/t", template_method => "mustache", template_data => @(data);`,
  },
  {
    name: "mustache-inline",
    files: {},
    main: `vars: "data" data => '{ "k": "v", "o": { "x": 1, "y": [true, null] } }';
files: "$(d)/out" template_method => "inline_mustache", edit_template_string => "k={{k}}
{{%o}}
{{$o}}
{{#o}}{{@}};{{/o}}
", template_data => @(data);`,
  },
  {
    name: "mustache-datastate-default",
    files: { t: "{{#classes.mustache_flag}}flag set{{/classes.mustache_flag}}\nv={{vars.main.v}}\n" },
    main: `vars: "v" string => "value";
classes: "mustache_flag" expression => "any", scope => "namespace";
files: "$(d)/out" create => "true", edit_template => "$(d)/t", template_method => "mustache";`,
  },
  {
    name: "mustache-existing-same-and-different",
    files: { same: "hello\n", diff: "old\n", t: "hello\n" },
    main: `files:
  "$(d)/same" edit_template => "$(d)/t", template_method => "mustache";
  "$(d)/diff" edit_template => "$(d)/t", template_method => "mustache";`,
  },
  {
    name: "mustache-render-error",
    files: { t: "{{#a}}unclosed", out: "keep\n" },
    main: `vars: "data" data => '{ "a": true }';
files: "$(d)/out" edit_template => "$(d)/t", template_method => "mustache", template_data => @(data), classes => outcome("r");
reports: 
  r_failed:: "render failed";`,
  },
  {
    name: "mustache-missing-template-and-create-false",
    files: {},
    main: `files:
  "$(d)/o1" edit_template => "$(d)/nosuch", template_method => "mustache";
  "$(d)/o2" edit_template => "$(d)/nosuch", template_method => "mustache", create => "false";`,
  },
  {
    name: "mustache-no-backup-and-perms",
    files: { out: "old\n" },
    main: `files: "$(d)/out" template_method => "inline_mustache", edit_template_string => "new {{x}}", template_data => '{"x": "y"}', edit_defaults => nobackup, perms => m("644");`,
  },
  {
    name: "mustache-warn-only",
    files: { out: "old\n" },
    main: `files: "$(d)/out" template_method => "inline_mustache", edit_template_string => "new", action => warn_only;`,
  },
  {
    name: "mustache-bad-template-data",
    files: {},
    main: `files: "$(d)/out" template_method => "inline_mustache", edit_template_string => "x", template_data => @(nosuch);`,
  },
  {
    name: "mustache-multibyte-and-crlf",
    files: { t: "caf\u00e9 {{x}}\r\n{{#l}}{{.}}\r\n{{/l}}" },
    main: `vars: "data" data => '{ "x": "\u00e9t\u00e9 & co", "l": ["\u2603", "b"] }';
files: "$(d)/out" create => "true", edit_template => "$(d)/t", template_method => "mustache", template_data => @(data);`,
  },
];

export const scenarios: readonly Scenario[] = [
  ...insert,
  ...remove,
  ...replace,
  ...fields,
  ...defaults,
  ...cfTemplates,
  ...mustache,
];
