/**
 * The cases record-strings.mjs records: one function call each (policy
 * text), the kind of variable that holds its result, and its family
 * ("strings" or "regex", the test file that checks it). PRELUDE and CLASSES
 * set up what the calls refer to; tend's tests build the same context.
 */
export const PRELUDE = [
  { name: "s", type: "string", value: '"hello world"' },
  { name: "uni", type: "string", value: '"héllo wörld"' },
  { name: "lst", type: "slist", value: '{ "b", "a", "c", "a" }' },
  { name: "quoted", type: "slist", value: '{ "x\\"y", "z" }' },
  { name: "emptylist", type: "slist", value: "{ }" },
  {
    name: "d",
    type: "data",
    value: 'parsejson(\'{"k1":"v1","k2":["x","y"],"k3":{"deep":true},"n":1,"t":true,"z":null}\')',
  },
  { name: "arr", type: "data", value: 'parsejson(\'["p","q",3]\')' },
  {
    name: "obj",
    type: "data",
    value:
      'parsejson(\'{"name":"<b>&q>","list":[{"i":1},{"i":2}],"flag":false,"on":true,"empty":[],"m":{"a":"1","b":"2"},"str":"","zero":0}\')',
  },
  { name: "unsorted", type: "data", value: 'parsejson(\'{"b":1,"a":[3,1],"c":{"z":1,"y":2}}\')' },
  { name: "ca[one]", type: "string", value: '"1"' },
  { name: "ca[two]", type: "string", value: '"2"' },
];
export const CLASSES = ["myclass_one", "myclass_two", "other_class"];

const cases = [];
const add =
  (family, kind, extra = {}) =>
  (call) =>
    cases.push({ family, kind, call, ...extra });
const str = add("strings", "string");
const strList = add("strings", "slist");
const rx = add("regex", "string");
const rxData = add("regex", "data");
const rxList = add("regex", "slist", { unordered: true });

// --- canonify, canonifyuniquely, concat, escape -------------------------------
str('canonify("a-b.c")');
str('canonify("")');
str('canonify("héllo")');
str('canonify("ns:class name/with*stuff_ok")');
str('canonify("$(s)")');
str('canonifyuniquely("a b")');
str('canonifyuniquely("")');
str('canonifyuniquely("héllo")');
str('concat("a", "$(s)", "c")');
str("concat()");
str('concat("")');
str('concat("x", "", "y")');
str('escape("a.b*c/d-e f")');
str('escape("plain123")');
str('escape("")');
str('escape("under_score [x] (y) {z} ^$|?+")');
str('escape("é")');
// --- string_* -------------------------------------------------------------------
str('string_downcase("HeLLo World 123")');
str('string_downcase("ÉCOLE")');
str('string_upcase("hello wörld")');
str('string_upcase("")');
str('string_reverse("abc")');
str('string_reverse("")');
str('string_reverse("a")');
str('string_reverse("aé")');
str('string_length("hello")');
str('string_length("")');
str('string_length("é")');
str('string_length("$(uni)")');
str('string_head("abcdef", 3)');
str('string_head("abcdef", 0)');
str('string_head("abcdef", 10)');
str('string_head("abcdef", -2)');
str('string_head("abcdef", -10)');
str('string_head("éa", 1)');
str('string_head("abcdef", "1k")');
str('string_tail("abcdef", 3)');
str('string_tail("abcdef", 0)');
str('string_tail("abcdef", 10)');
str('string_tail("abcdef", -2)');
str('string_tail("abcdef", -10)');
str('string_tail("aé", 1)');
str('string_trim("  a b \n")');
str('string_trim("")');
str('string_trim("\t\tx")');
str('string_trim("none")');
str('string_replace("a.b.c", ".", "/")');
str('string_replace("aaa", "a", "bb")');
str('string_replace("abc", "", "x")');
str('string_replace("abc", "z", "x")');
str('string_replace("", "a", "x")');
str('string_replace("aaaa", "aa", "a")');
str('string_replace("héllo", "é", "e")');
str('strcmp("a", "a")');
str('strcmp("a", "b")');
str('strcmp("", "")');
str('strcmp("a", "A")');
// --- join, string, lastnode -------------------------------------------------
str('join(":", lst)');
str('join(":", "lst")');
str('join("", lst)');
str('join(",", emptylist)');
str('join(",", d)');
str('join(",", arr)');
str('join(",", \'["i", 2, true, null, [1], {"a": 1}]\')');
str('join(",", "nosuchvar")');
str('join(", ", quoted)');
str('string("plain")');
str("string(@(lst))");
str("string(@(d))");
str('string("")');
str("string(@(unsorted))");
str('format("%S", unsorted)');
str('string_mustache("{{$-top-}}|{{#-top-}}{{@}};{{/-top-}}", unsorted)');
str('join(",", unsorted)');
str('lastnode("a/b/c", "/")');
str('lastnode("a/b/c/", "/")');
str('lastnode("abc", "/")');
str('lastnode("", "/")');
str('lastnode("a.b.c", "\\.")');
str('lastnode("a1b22c", "[0-9]+")');
str('lastnode("a/b", "(")');
// --- splitstring, string_split ----------------------------------------------
strList('splitstring("a,b,,c", ",", 10)');
strList('splitstring("a,b,c", ",", 2)');
strList('splitstring("a,b,c", ",", 0)');
strList('splitstring("", ",", 10)');
strList('splitstring("a,b,c,", ",", 10)');
strList('splitstring(",a", ",", 10)');
strList('splitstring("abc", "", 10)');
strList('splitstring("a1b22c", "[0-9]+", 10)');
strList('splitstring("a,b", "(", 10)');
strList('splitstring("a,b,c", ",", -1)');
strList('string_split("a,b,,c", ",", 10)');
strList('string_split("a,b,c", ",", 2)');
strList('string_split("a,b,c", ",", 1)');
strList('string_split("", ",", 10)');
strList('string_split("abc", "", 3)');
strList('string_split("a,b,c,", ",", 10)');
strList('string_split("one two  three", "\\s+", 10)');
strList('string_split("a,b", ",", 0)');
strList('string_split("a,b", "(", 10)');
strList('string_split("héllo wörld", "ö", 10)');
// --- regex_replace ------------------------------------------------------------
str('regex_replace("aaa", "a", "b", "")');
str('regex_replace("aaa", "a", "b", "g")');
str('regex_replace("abc", "(b)", "[$1\\1]", "g")');
str('regex_replace("abc", "B", "x", "gi")');
str('regex_replace("abc", "B", "x", "g")');
str('regex_replace("abc", "(", "x", "g")');
str('regex_replace("abc", "", "-", "g")');
str('regex_replace("abcdefghij", ".", "", "g")');
str('regex_replace("abcdefghij", ".*", "TEST", "")');
str('regex_replace("abcdefghij", "(...)", "[cap=$1]", "g")');
str('regex_replace("abcdefghij", "(.)(.)(.)", "[\\1\\2\\3\\4\\5]", "g")');
str('regex_replace("", "abc", "ABC", "g")');
str('regex_replace("a\nb", "^b", "X", "")');
str('regex_replace("a\nb", "^b", "X", "m")');
str('regex_replace("a\nb", "a.b", "X", "")');
str('regex_replace("a\nb", "a.b", "X", "s")');
str('regex_replace("aaa", "a*?", "X", "g")');
str('regex_replace("aaa", "a*", "X", "g")');
str('regex_replace("aaa", "a*", "X", "gU")');
str('regex_replace("a b", "a b", "X", "x")');
str('regex_replace("a b", "a\\ b", "X", "x")');
str('regex_replace("abc", "b", "X", "T")');
str('regex_replace("abc", "(b)", "$1\\1", "T")');
str('regex_replace("abc", "(b)", "$1$2", "")');
str('regex_replace("abc", "(?=c)", "-", "g")');
str('regex_replace("baaac", "a*", "-", "g")');
str('regex_replace("abc", "b", "$&$&", "")');
str('regex_replace("abc", "(a)(b)", "$+", "")');
str('regex_replace("abc", "b", "\\t|\\n", "")');
str('regex_replace("abc", "b", "x\\0y", "")');
str('regex_replace("abc", "b", "\\\\1", "")');
str('regex_replace("abc", "b", "\\x", "")');
str('regex_replace("abc", "b", "$", "")');
str('regex_replace("héllo", "é", "e", "g")');
str('regex_replace("héllo", "h.l", "X", "g")');
str('regex_replace("héllo", "h..l", "X", "g")');
str('regex_replace("Hello", "(?i)h", "J", "")');
str('regex_replace("a.b.c", "\\.", "-", "g")');
str('regex_replace("key = value", "^(\\w+)\\s*=\\s*(.*)$", "$2=$1", "")');
// --- format -------------------------------------------------------------------
str('format("%s-%d-%5s|%-3s|", "a", "42", "r", "l")');
str('format("%5.2f|%x|%o|%e", "3.14159", "255", "8", "1234.5")');
str('format("%d", "abc")');
str('format("%d", "12abc")');
str('format("%d", "-7")');
str('format("%05d|%+d|% d|%-5d|", "42", "42", "42", "42")');
str('format("%.3d|%3.1d", "7", "7")');
str('format("%#x|%#o|%X|%i|%u", "255", "8", "255", "1", "2")');
str('format("%x", "-1")');
str('format("%f|%.0f|%.1f|%10.3f", "2.5", "2.5", "0.05", "-3.14159")');
str('format("%.0f|%.0f|%.0f", "0.5", "1.5", "3.5")');
str('format("%f", "1e300")');
str('format("%f", "abc")');
str('format("%f", "inf")');
str('format("%s %s", "a")');
str('format("no directives")');
str('format("100%%")');
str('format("%%%s%%", "x")');
str('format("a%")');
str('format("%s %", "x")');
str('format("%.2s|%5.1s|", "abc", "xyz")');
str('format("%S", lst)');
str('format("%S", d)');
str('format("%S", quoted)');
str('format("%S", s)');
str('format("%20S|", arr)');
str('format("%c", "65")');
str('format("%hd", "1")');
str('format("%ld|%lx", "5", "255")');
str('format("%s", "é")');
str('format("%3s|", "é")');
str('format("%d", "99999999999999999999")');
str('format("%s", "")');
// --- hash, hash_to_int ------------------------------------------------------
str('hash("abc", "md5")');
str('hash("abc", "sha1")');
str('hash("abc", "sha256")');
str('hash("abc", "sha384")');
str('hash("abc", "sha512")');
str('hash("abc", "sha224")');
str('hash("", "md5")');
str('hash("é", "md5")');
str('hash("abc", "crypt")');
str('hash("abc", "nosuch")');
str('hash_to_int(0, 100, "abc")');
str('hash_to_int(100, 0, "abc")');
str('hash_to_int(5, 5, "abc")');
str('hash_to_int(-10, 10, "hello")');
str('hash_to_int(0, 1000000, "")');
str('hash_to_int(0, 10, "é")');
// --- strftime ---------------------------------------------------------------
str('strftime("gmtime", "%Y-%m-%d %H:%M:%S", 0)');
str('strftime("gmtime", "%c|%D|%G|%g|%U|%V|%W|%x|%X|%z|%Z|%C|%k|%l|%P|%r|%R", 1000000000)');
str('strftime("gmtime", "%a %A %b %B %h %e %j %u %w %p %I %y %F %T %s %%", 1234567890)');
str('strftime("gmtime", "%E|%O|%+|%q|%Ey|%Od", 1000000000)');
str('strftime("gmtime", "%-d|%_m|%05Y|%^a|%#b|%10B|%-j", 1000000000)');
str('strftime("gmtime", "%G-W%V-%u", 1104537600)');
str('strftime("gmtime", "%G-W%V-%u|%U|%W", 1230681600)');
str('strftime("gmtime", "%Y", -1)');
str('strftime("gmtime", "%Y-%m-%d", 4102444800)');
str('strftime("gmtime", "", 0)');
str('strftime("gmtime", "plain", 0)');
str('strftime("gmtime", "%Y", "abc")');
str('strftime("gmtime", "%n%t", 0)');
// --- string_mustache ------------------------------------------------------------
str('string_mustache("{{#l}}{{.}},{{/l}}|{{%-top-}}|{{$-top-}}", \'{"l":[1,2],"m":{"a":"<"}}\')');
str('string_mustache("Hi {{name}} {{{name}}} {{&name}}", obj)');
str('string_mustache("{{#list}}[{{i}}]{{/list}}", obj)');
str('string_mustache("{{#flag}}yes{{/flag}}{{^flag}}no{{/flag}}", obj)');
str('string_mustache("{{#on}}on{{/on}}{{^on}}off{{/on}}", obj)');
str('string_mustache("{{#empty}}x{{/empty}}{{^empty}}none{{/empty}}", obj)');
str('string_mustache("{{#m}}{{a}}-{{b}}{{/m}}", obj)');
str('string_mustache("{{#m}}{{@}}={{.}};{{/m}}", obj)');
str('string_mustache("{{#list}}{{@}}:{{i}};{{/list}}", obj)');
str('string_mustache("{{m.a}}|{{m.zz}}|{{nosuch}}", obj)');
str('string_mustache("{{! comment }}a{{=<% %>=}}<%name%><%={{ }}=%>{{zero}}", obj)');
str('string_mustache("{{#str}}S{{/str}}{{^str}}E{{/str}}|{{#zero}}Z{{/zero}}", obj)');
str('string_mustache("{{m}}|{{list}}", obj)');
str('string_mustache("{{$m}}|{{%m}}", obj)');
str('string_mustache("a\n{{#on}}\nb\n{{/on}}\nc", obj)');
str('string_mustache("{{#nosuch}}x", obj)');
str('string_mustache("{{#a}}x{{/b}}", obj)');
str('string_mustache("{{x}}", \'{"x":"<é>&"}\')');
str('string_mustache("{{#-top-}}{{@}};{{/-top-}}", \'{"a":1,"b":2}\')');
str('string_mustache("{{#.}}{{.}}{{/.}}", \'["a","b"]\')');
str('string_mustache("{{#list}}{{name}}{{/list}}", obj)');
str('string_mustache("{{n}}|{{t}}|{{z}}|{{k3.deep}}", d)');
str('string_mustache("{{x}}", nosuchvar)');
str('string_mustache("plain")');
str('string_mustache("", obj)');

// --- regcmp: PCRE dialect -------------------------------------------------------
const patterns = [
  ["a|ab", "ab"],
  ["ab|a", "ab"],
  ["a.b", "a\nb"],
  ["[[:alpha:]]+", "abc"],
  ["[[:alpha:]]+", "ab1"],
  ["[[:^digit:]]+", "abc"],
  ["[[:space:]]", " "],
  ["[[:punct:]]+", "!?"],
  ["[[:xdigit:]]+", "09afAF"],
  ["[[:upper:][:digit:]]+", "A1"],
  ["[[:foo:]]", "a"],
  ["(?i)ABC", "abc"],
  ["a(?i)b", "aB"],
  ["a(?i)b", "AB"],
  ["a(?i:b)c", "aBc"],
  ["a(?i:b)c", "aBC"],
  ["(a(?i)b|c)", "C"],
  ["(?i)[a-c]+", "ABC"],
  ["(?i)[^a]", "A"],
  ["(?-i)a", "A"],
  ["(?s)a.b", "a\nb"],
  ["(?-s)a.b", "a\nb"],
  ["(?x) a b c ", "abc"],
  ["(?x)a#comment\nb", "ab"],
  ["\\Aab\\z", "ab"],
  ["ab\\Z", "ab"],
  ["^a$", "a"],
  ["a$", "a"],
  ["^b", "a\nb"],
  ["a\\n^b$", "a\nb"],
  ["a(?>bc|b)c", "abcc"],
  ["a(?>bc|b)c", "abc"],
  ["a*+a", "aaa"],
  ["a++b", "aaab"],
  ["a?+a", "a"],
  ["a{1,3}+a", "aaaa"],
  ["(?:ab)*+c", "ababc"],
  ["x*+", "xxx"],
  ["\\d+", "123"],
  ["\\d+", "12a"],
  ["\\w+", "a_1"],
  ["\\w+", "é"],
  ["\\s+", " \t\n"],
  ["\\h+", " \t"],
  ["\\H", "a"],
  ["\\v", "\n"],
  ["\\R", "\r\n"],
  ["\\N+", "abc"],
  ["\\Qa.b\\E", "a.b"],
  ["\\Qa.b\\E", "axb"],
  ["\\Qa.b\\E+", "a.bbb"],
  ["(?P<n>a)(?P=n)", "aa"],
  ["(?<n>a)\\k<n>", "aa"],
  ["(?'n'a)\\k{n}", "aa"],
  ["(a)\\g{-1}", "aa"],
  ["(a)\\g1", "aa"],
  ["(a)\\1", "ab"],
  ["(?R)", "x"],
  ["(?(1)a|b)", "b"],
  ["\\Ga", "a"],
  ["a\\Kb", "ab"],
  ["a(", "a("],
  ["a)", "a)"],
  ["*a", "a"],
  ["a**", "a"],
  ["[z-a]", "a"],
  ["a{3,2}", "aaa"],
  ["a{70000}", "a"],
  ["(a)\\2", "aa"],
  ["\\", "\\"],
  ["(?<=a+)b", "ab"],
  [".", "é"],
  ["..", "é"],
  ["(?i)é", "É"],
  ["[é]", "é"],
  ["[é][é]", "é"],
  ["é+", "éé"],
  ["h.llo", "héllo"],
  ["h..llo", "héllo"],
  ["a{,2}", "a{,2}"],
  ["a{2}", "aa"],
  ["a{2,}", "aaaa"],
  ["x*?y", "xxy"],
  ["a\\yb", "ayb"],
  ["\\x41\\x{42}\\101", "ABA"],
  ["[\\d-z]+", "1-z"],
  ["[a-]+", "a-"],
  ["[]a]+", "]a"],
  ["[^]a]", "b"],
  ["a(?#comment)b", "ab"],
  ["(?<=a)b", "b"],
  ["a(?=b)", "a"],
  ["a(?!b)", "a"],
  ["(?U)a+", "aaa"],
  ["a\\8", "a8"],
  ["\\bfoo\\b", "foo"],
  ["(?:a|b)+", "abba"],
  ["", ""],
  ["a*", ""],
  ["ab", "abc"],
  ["abc|ab", "ab"],
  ["(*FAIL)|a", "a"],
  ["(?|a)", "a"],
  ["\\p{L}", "a"],
  ["[[.a.]]", "a"],
  ["(?z)", "a"],
  ["\\cA", "\u0001"],
  ["[\\w.]+", "a.b"],
  ["a\\x{100}", "a"],
];
for (const [pattern, subject] of patterns) rx(`regcmp(${quote(pattern)}, ${quote(subject)})`);

// --- regextract, data_regextract ---------------------------------------------------
rx('regextract("b(.)", "abcd", "arr")');
rx('regextract("(.)b", "abcd", "arr")');
rx('regextract("x", "abcd", "arr")');
rx('regextract("(", "abcd", "arr")');
rxData('data_regextract("b(.)", "abcd")');
rxData('data_regextract("a(?<x>b)(c)", "abcd")');
rxData('data_regextract("^(?P<x>b)", "abcd")');
rxData('data_regextract("^b", "a\nb")');
rxData('data_regextract("a$", "a\nb")');
rxData('data_regextract("(a)|(b)", "b")');
rxData('data_regextract("(a)?b", "b")');
rxData('data_regextract("(?i)A(?-i)b", "ab")');
rxData('data_regextract("(\\d+)-(\\d+)", "port 80-443 open")');
rxData('data_regextract("(", "x")');
rxData('data_regextract("", "")');
rxData('data_regextract("(é)(.)", "aéb")');
rxData('data_regextract("(?<year>\\d{4})-(?<month>\\d\\d)", "on 2024-05-01")');
rxData('data_regextract("(a)(?:b)(c)", "abc")');
// --- reglist, regarray, classmatch, classesmatching, countclassesmatching --------------
rx('reglist(@(lst), "[ab]")');
rx('reglist(@(lst), "z")');
rx('reglist(@(lst), "(")');
rx('reglist(@(emptylist), ".*")');
rx('reglist("lst", "c")');
rx('regarray("ca", "2")');
rx('regarray("ca", "3")');
rx('regarray("d", "v1")');
rx('classmatch("myclass_o.*")');
rx('classmatch("myclass_(")');
rx('classmatch("myclass_one")');
rx('classmatch("nosuchclass.*")');
rx('classmatch("myclass")');
rx('countclassesmatching("myclass_.*")');
rx('countclassesmatching("nosuch.*")');
rxList('classesmatching("myclass.*")');
rxList('classesmatching("(myclass|other)_.*")');
rxList('classesmatching("nosuch.*")');

/** A CFEngine double-quoted string holding `text`. */
function quote(text) {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

export const CASES = cases;
