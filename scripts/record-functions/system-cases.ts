/**
 * The cases `record-system.ts` runs through cf-agent: one call each, for the
 * files, system, time, math and network families. `{DIR}` stands for a
 * directory holding FILES. Cases are host-independent: fixed dates (TZ=UTC),
 * files the recorder creates, loopback addresses, commands every Unix has.
 */

export type SystemFamily = "files" | "system" | "time" | "math" | "network";

export interface SystemCase {
  readonly family: SystemFamily;
  readonly expr: string;
  /** Extra `vars` promise lines, evaluated before the call. */
  readonly setup?: readonly string[];
}

/** The tree under `{DIR}`: a string is a file's content, `null` a directory, `{ link }` a symlink. */
export const FILES: Readonly<Record<string, string | null | { readonly link: string }>> = {
  "a.txt": "alpha\nbeta\ngamma\n",
  "b.txt": "one two three\nfour five\n",
  "noeol.txt": "x\ny",
  "empty.txt": "",
  "nul.bin": "ab\u0000cd",
  "blank.txt": "a\n\n\nb\n",
  "fields.txt": "root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000::/home/user:/bin/sh\n",
  "peers.txt": "# peers\nh1\nh2\nh3\nh4\nh5\n",
  sub: null,
  "sub/c.cf": "c\n",
  "sub/deep": null,
  "sub/deep/d.cf": "d\n",
  "sub/.hidden": "h\n",
  "sub/deep/deeper": null,
  "sub/deep/deeper/e.cf": "e\n",
  "exe.sh": "#!/bin/sh\necho from exe\n",
  "link-a": { link: "a.txt" },
  "link-sub": { link: "sub" },
  "link-rel": { link: "sub/../a.txt" },
  "link-chain": { link: "link-a" },
  dangling: { link: "missing" },
};

/** Files made executable by the recorder and the tests. */
export const EXECUTABLES: readonly string[] = ["exe.sh"];

/** Environment variables set for cf-agent and the tests. */
export const ENVIRONMENT: Readonly<Record<string, string>> = {
  TEND_TEST_VAR: "hello world",
  TEND_TEST_EMPTY: "",
};

/** Variables every case starts with. */
export const SHARED_SETUP: readonly string[] = [
  `"nums" slist => { "10", "9", "100", "-1", "2.5" };`,
  `"words" slist => { "b", "a", "c", "a" };`,
  `"empty" slist => { };`,
  `"ips" slist => { "10.0.0.1", "192.168.1.10", "9.9.9.9" };`,
  `"macs" slist => { "00:1a:2b:3c:4d:5e", "00:1a:2b:3c:4d:5f", "ff:00:00:00:00:00" };`,
  `"bad" string => "abc";`,
  `"rel" string => "relative/path";`,
  `"neg" string => "-5";`,
  `"huge" string => "99999999999999999999";`,
];

const cases: SystemCase[] = [];
const add =
  (family: SystemFamily) =>
  (expr: string, setup?: readonly string[]): void => {
    cases.push(setup ? { family, expr, setup } : { family, expr });
  };

const math = add("math");
for (const e of [
  "1+2",
  "3-2",
  "3--2",
  "2*3+4",
  "2+3*4",
  "2^3^2",
  "2**10",
  "10/4",
  "7%3",
  "-7%3",
  "1/0",
  "0/0",
  "(1+2)*3",
  "((2))",
  "3==3",
  "3==4",
  "1<2",
  "2<=2",
  "3>2",
  "2>=3",
  "1+1==2",
  "2k",
  "2K",
  "1.5m",
  "3g",
  "1t",
  "2 k",
  "pi",
  "pi * 2",
  "pi*2",
  "pi_2",
  "e",
  "log2e",
  "ln10",
  "sqrt1_2",
  "sqrt(16)",
  "sqrt(4+5)",
  "sqrt((4+5))",
  "ceil(1.2)",
  "floor(-1.2)",
  "abs(-3)",
  "step(-1)",
  "step(0)",
  "log(e)",
  "log10(1000)",
  "log2(8)",
  "sin(0)",
  "cos(0)",
  "sqrt(-1)",
  "log(-1)",
  "",
  "   ",
  "abc",
  "1 + ",
  "1 junk",
  "- 2",
  "-.5",
  "1.",
  "1e300*1e300",
  "999999999999*999999999999",
]) {
  math(`eval("${e}", "math", "infix")`);
}
for (const e of ["1", "0", "3==3", "3==4", "0.0000000000000000001", "abc", "-1", ""]) {
  math(`eval("${e}", "class", "infix")`);
}
math('eval("1+1")');
for (const v of [
  "3.9",
  "-3.9",
  "1e3",
  "2k",
  "1.5K",
  "abc",
  "",
  "1x",
  "1xy",
  "99999999999999999999",
  "inf",
  "nan",
]) {
  math(`concat(int("${v}"))`);
}
math("concat(int($(huge)))");
for (const [a, b] of [
  ["1", "10"],
  ["10", "-3"],
  ["5", "5"],
  ["1k", "2K"],
]) {
  math(`concat(irange("${a}", "${b}"))`);
}
math("concat(irange($(bad), 3))");
math('concat(rrange("1.5", "3"))');
math('concat(rrange("-2", "7.25"))');
math("concat(rrange($(bad), 3))");
math('randomint("5", "5")');
math('randomint("7", "8")');
math('randomint("8", "7")');
math("randomint($(bad), 3)");
for (const [a, b] of [
  ["10", "9"],
  ["9", "10"],
  ["abc", "abd"],
  ["b", "a"],
  ["1e3", "999"],
  ["1k", "999"],
  ["10", "10"],
  ["-1", "-2"],
  ["1x", "0"],
  ["", "1"],
]) {
  math(`isgreaterthan("${a}", "${b}")`);
  math(`islessthan("${a}", "${b}")`);
}
for (const mode of ["int", "real", "lex"]) {
  math(`max(nums, "${mode}")`);
  math(`min(nums, "${mode}")`);
}
math('max(ips, "ip")');
math('min(ips, "IP")');
math('max(macs, "mac")');
math('min(macs, "MAC")');
math('max(words, "lex")');
math('max(empty, "lex")');
math("mean(nums)");
math("variance(nums)");
math("mean(empty)");
math("variance(empty)");
math("variance('[5]')");
math("mean(words)");
math("sum(nums)");
math("product(nums)");

const time = add("time");
time('on("2020", "0", "0", "0", "0", "0")');
time('on("1970", "0", "0", "0", "0", "0")');
time('on("2000", "1", "28", "23", "59", "59")');
time('on("2021", "13", "0", "0", "0", "0")');
time('on("2021", "0", "40", "25", "61", "61")');
time("on($(bad), 0, 0, 0, 0, 0)");
time('accumulated("0", "0", "0", "0", "0", "0")');
time('accumulated("1", "1", "1", "1", "1", "1")');
time('accumulated("0", "0", "0", "0", "0", "40000")');
time('accumulated("1000", "0", "0", "0", "0", "0")');
time("accumulated($(bad), 0, 0, 0, 0, 0)");
time('laterthan("2000", "1", "1", "0", "0", "0")');
time('laterthan("2999", "1", "1", "0", "0", "0")');
time('ago("0", "0", "0", "0", "0", "0")');

const files = add("files");
for (const fn of ["fileexists", "isdir", "isplain", "islink", "isexecutable"]) {
  for (const path of [
    "{DIR}/a.txt",
    "{DIR}/sub",
    "{DIR}/link-a",
    "{DIR}/link-sub",
    "{DIR}/dangling",
    "{DIR}/nope",
  ]) {
    files(`${fn}("${path}")`);
  }
}
files('isexecutable("{DIR}/exe.sh")');
files('isexecutable("/bin/sh")');
files("fileexists($(rel))");
for (const f of ["a.txt", "empty.txt", "nul.bin", "nope"]) files(`filesize("{DIR}/${f}")`);
files('filestat("{DIR}/a.txt", $(bad))');
for (const field of ["size", "type", "basename", "dirname", "permoct", "permstr", "nlink", "xattr"]) {
  files(`filestat("{DIR}/a.txt", "${field}")`);
}
for (const path of ["link-a", "link-rel", "link-chain", "dangling", "link-sub", "a.txt"]) {
  files(`filestat("{DIR}/${path}", "linktarget")`);
  files(`filestat("{DIR}/${path}", "linktarget_shallow")`);
}
files('filestat("{DIR}/sub", "type")');
files('filestat("{DIR}/link-a", "type")');
files('filestat("{DIR}/nope", "size")');
files('filestat("/dev/null", "type")');
files('filesexist(\'["{DIR}/a.txt", "{DIR}/sub"]\')');
files('filesexist(\'["{DIR}/a.txt", "{DIR}/nope"]\')');
files("filesexist('[]')");
files("filesexist(empty)");
files('filesexist("{DIR}/a.txt")');
for (const pattern of [
  "{DIR}/*.txt",
  "{DIR}/?.txt",
  "{DIR}/[ab].txt",
  "{DIR}/[!ab]*.txt",
  "{DIR}/sub/*",
  "{DIR}/sub/.*",
  "{DIR}/*/",
  "{DIR}/**",
  "{DIR}/**/*.cf",
  "{DIR}/sub/**/e.cf",
  "{DIR}/{a,b}.txt",
  "{DIR}/nope/*",
  "{DIR}/a.txt",
  "{DIR}/nope.txt",
  "relative/*",
  "{DIR}/sub/",
  "{DIR}/a.txt/",
  "{DIR}//a.txt",
  "{DIR}/./a.txt",
  "{DIR}/sub/../a.txt",
  "{DIR}/*/*/",
]) {
  files(`findfiles("${pattern}")`);
}
files('findfiles("{DIR}/a.txt", "{DIR}/*.txt")');
// Bounded by the level: searching above {DIR} would find whatever the host holds.
files('findfiles_up("{DIR}/sub/deep/deeper", "*.cf", "3")');
files('findfiles_up("{DIR}/sub/deep/deeper", "*.cf", "1")');
files('findfiles_up("{DIR}/sub/deep", "a.txt", "2")');
files('findfiles_up("{DIR}/nope", "*.cf")');
files('findfiles_up("{DIR}/sub", "/abs")');
files('lsdir("{DIR}/sub", "", "false")');
files('lsdir("{DIR}/sub", ".*\\.cf", "true")');
files('lsdir("{DIR}/sub", "c", "false")');
files('lsdir("{DIR}/nope", "", "false")');
for (const path of ["/a/b/c", "/a/b/", "/a//", "/a", "/", "a", "", "a/b", "//a", "a/"]) {
  files(`dirname("${path}")`);
  files(`basename("${path}")`);
}
files('basename("a.cf", ".cf")');
files('basename(".cf", ".cf")');
files('basename("/x/y.tar.gz", "gz")');
files('basename("/x/y.tar.gz", ".zip")');
files('translatepath("/a/b\\\\c")');
for (const alg of ["md5", "sha1", "sha256", "sha384", "sha512"]) files(`file_hash("{DIR}/a.txt", "${alg}")`);
files('file_hash("{DIR}/nope", "md5")');
files('file_hash("{DIR}/nope", "sha256")');
files('countlinesmatching("[a-z]+", "{DIR}/a.txt")');
files('countlinesmatching("b.*", "{DIR}/a.txt")');
files('countlinesmatching("", "{DIR}/blank.txt")');
files('countlinesmatching(".*", "{DIR}/noeol.txt")');
files('countlinesmatching(".*", "{DIR}/nope")');
files('countlinesmatching(".*", "{DIR}/sub")');
files('countlinesmatching("(", "{DIR}/a.txt")');
files('readfile("{DIR}/a.txt")');
files('readfile("{DIR}/a.txt", "3")');
files('readfile("{DIR}/a.txt", "0")');
files('readfile("{DIR}/a.txt", "inf")');
files('readfile("{DIR}/nul.bin")');
files('readfile("{DIR}/empty.txt")');
files('readfile("{DIR}/sub")');
files('readfile("{DIR}/nope")');
files("readfile($(rel))");
files('readfile("{DIR}/a.txt", $(neg))');
files('readfile("/dev/null")');
files('getfields("user:.*", "{DIR}/fields.txt", ":", "f")');
files('getfields(".*", "{DIR}/fields.txt", ":", "f")');
files('getfields("nobody:.*", "{DIR}/fields.txt", ":", "f")');
files('getfields(".*", "{DIR}/nope", ":", "f")');
files('isnewerthan("{DIR}/a.txt", "{DIR}/nope")');
files('accessedbefore("{DIR}/nope", "{DIR}/a.txt")');
files('changedbefore("{DIR}/a.txt", "{DIR}/a.txt")');
files('isnewerthan("{DIR}/a.txt", "{DIR}/a.txt")');

const system = add("system");
system('execresult("/bin/echo hello", "noshell")');
system('execresult("/bin/echo   spaced   out  ", "noshell")');
system(`execresult("/bin/echo 'quoted  words' \\"dq\\"", "noshell")`);
system(`execresult("/bin/printf 'a  \\n\\n b \\n\\n  '", "noshell")`);
system('execresult("echo hi", "noshell")');
system('execresult("echo hi", "useshell")');
system('execresult("echo out; echo err >&2", "useshell")');
system('execresult("echo out; echo err >&2", "useshell", "stdout")');
system('execresult("echo out; echo err >&2", "useshell", "stderr")');
system('execresult("echo out; echo err >&2", "useshell", "both")');
system('execresult("exit 3", "useshell")');
system('execresult("/nonexistent/cmd", "noshell")');
system('execresult("/nonexistent/cmd", "useshell")');
// The shell's "not found" text differs between shells: only its status is host-independent.
system('execresult("nonexistent_cmd_xyz 2>/dev/null; echo $?", "useshell")');
system('execresult("{DIR}/a.txt", "noshell")');
system('execresult("{DIR}/exe.sh", "noshell")');
system('execresult("echo hi", "powershell")');
system('execresult_as_data("echo out; exit 3", "useshell")');
system('execresult_as_data("/bin/true", "noshell")');
system('execresult_as_data("/bin/false", "noshell")');
system('execresult_as_data("echo a; echo b >&2", "useshell", "stderr")');
system('returnszero("/bin/true", "noshell")');
system('returnszero("/bin/false", "noshell")');
system('returnszero("true", "noshell")');
system('returnszero("true", "useshell")');
system('returnszero("exit 1", "useshell")');
system('returnszero("/nonexistent", "noshell")');
system('returnszero("true", "powershell")');
system('getenv("TEND_TEST_VAR", "100")');
system('getenv("TEND_TEST_VAR", "5")');
system('getenv("TEND_TEST_VAR", "0")');
system('getenv("TEND_TEST_EMPTY", "10")');
system('getenv("TEND_TEST_UNSET_XYZ", "10")');
system("getenv(TEND_TEST_VAR, $(bad))");
system('getuid("root")');
system('getuid("0")');
system('getuid("no_such_user_xyz")');
system('getgid("root")');
system('getgid("no_such_group_xyz")');
system('userexists("root")');
system('userexists("0")');
system('userexists("no_such_user_xyz")');
system('userexists("4000000")');
system('groupexists("root")');
system('groupexists("0")');
system('groupexists("no_such_group_xyz")');
system('nth(getuserinfo("root"), "username")');
system('nth(getuserinfo("0"), "home_dir")');
system('sysctlvalue("kernel.ostype")');
system('sysctlvalue("kernel")');
system('sysctlvalue("no.such.key")');
system('packagesmatching(".*", ".*", ".*", ".*")');
system('packageupdatesmatching(".*", ".*", ".*", ".*")');
system('packagesmatching("(", ".*", ".*", ".*")');
system('processexists("no_such_process_xyz_123")');
system('findprocesses("no_such_process_xyz_123")');
system('registryvalue("HKLM", "x")');
system('hostinnetgroup("no_such_netgroup_xyz")');
for (const v of [
  "1.0.0",
  "3.12",
  "3.21",
  "3.21.0",
  "3.21.0.1",
  "3.21.1",
  "3",
  "4",
  "999.999.999",
  "03.021",
]) {
  for (const fn of ["at", "after", "before", "minimum", "maximum"]) system(`cf_version_${fn}("${v}")`);
}
for (const v of ["3.x", " 3", "3..1", "x3"]) {
  system(`cf_version_at($(v))`, [`"v" string => "${v}";`]);
}
system('cf_version_between("1.0", "999.999")');
system('cf_version_between("3.21.1", "3.20")');
system('cf_version_between("3.21", "3.21")');
system('cf_version_between("999", "999")');

const network = add("network");
for (const [range, ip] of [
  ["10.0.0.0/8", "10.1.2.3"],
  ["10.0.0.0/8", "11.1.2.3"],
  ["192.168.1.0/24", "192.168.1.255"],
  ["192.168.1.0/24", "192.168.2.1"],
  ["0.0.0.0/0", "8.8.8.8"],
  ["10.0.0.1-20", "10.0.0.15"],
  ["10.0.0.1-20", "10.0.0.21"],
  ["10.0.1-3.5", "10.0.2.5"],
  ["10.1", "10.1.2.3"],
  ["10.1", "10.12.3.4"],
  ["10.0.0.1", "10.0.0.1"],
  ["10.0.0.0/33", "10.0.0.1"],
  ["10.0.0.0/8", "not-an-ip"],
  ["abc", "abc"],
  ["abc", "abd"],
  ["10.0.0.0/8-9", "10.0.0.1"],
  ["fe80::/16", "fe80::1"],
  ["fe80::/16", "fe81::1"],
  ["fe80::/12", "fe80::1"],
  ["2001:db8::/32", "2001:db8::1"],
  ["10.0.0.0/8", "fe80::1"],
]) {
  network(`isipinsubnet("${range}", "${ip}")`);
}
network('isipinsubnet("10.0.0.0/8", "1.1.1.1", "10.0.0.1")');
network('isipinsubnet("10.0.0.0/8", ips)');
network('iprange("127.0.0.1")');
network('iprange("127.0.0.0/8")');
network('iprange("127.0.0.1", "lo")');
network('iprange("127.0.0.1", "no_such_iface")');
network('iprange("203.0.113.0/24")');
network('hostrange("nohost", "1-10")');
network('hostrange("host", "x-y")');
network('host2ip("localhost")');
network('host2ip("no.such.host.invalid")');
network('ip2host("999.1.1.1")');
network('readtcp("127.0.0.1", "1", "", "10")');
network('remotescalar("x", "127.0.0.1", "false")');
network('hubknowledge("x")');
network('remoteclassesmatching(".*", "127.0.0.1", "false", "pfx")');
network('hostswithclass("linux", "name")');
network('hostsseen("24", "lastseen", "name")');
network('ldapvalue("ldap://127.0.0.1", "dc=x", "(a=b)", "cn", "subtree", "none")');
network('ldaplist("ldap://127.0.0.1", "dc=x", "(a=b)", "cn", "subtree", "none")');
network('regldap("ldap://127.0.0.1", "dc=x", "(a=b)", "cn", "subtree", ".*", "none")');
network("url_get(\"http://127.0.0.1:1/\", '{}')");
network('peers("{DIR}/peers.txt", "#.*", "2")');
network('peerleaders("{DIR}/peers.txt", "#.*", "2")');
network('peerleader("{DIR}/peers.txt", "#.*", "2")');
network('peers("{DIR}/peers.txt", "#.*", $(one))', ['"one" string => "1";']);
network('peers("{DIR}/nope", "#.*", "2")');
network('peerleaders("{DIR}/nope", "#.*", "2")');

export const CASES: readonly SystemCase[] = cases;
