/**
 * edit_xml cases run through cf-agent 3.21 (recorded by
 * scripts/record-xml-edits.ts into test/fixtures/xml-edits/recorded.json)
 * and through tend (test/promises/xml/differential.test.ts): the file
 * before, the edit_xml bundle, and what both agents must agree on — the
 * file after one run and after a second, and their log lines.
 */

export interface XmlCase {
  /** Lower case letters, digits and `_`: used in file, bundle and class names. */
  readonly name: string;
  /** The file before the first run; absent: no file. */
  readonly input?: string;
  /** The sections of the case's edit_xml bundle (it takes no parameters). */
  readonly bundle: string;
  /** More attributes for the files promise, each followed by a comma. */
  readonly attributes?: string;
}

const TOMCAT = `<?xml version="1.0"?>
<Server port="8005">
  <!-- service -->
  <Service name="Catalina">
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps"/>
    </Engine>
  </Service>
</Server>
`;

const SIMPLE = "<r><a x='1'>text<b/>tail</a><c/></r>\n";

export const XML_CASES: readonly XmlCase[] = [
  // build_xpath
  { name: "build_empty", input: "", bundle: `build_xpath: "/Server/Service/Engine/Host";` },
  {
    name: "build_empty_predicates",
    input: "",
    bundle: `build_xpath: "/Server/Service/Engine/Host[ @name=\\"cfe_host\\" | Alias = cfe_alias ]";`,
  },
  { name: "build_in_node", input: TOMCAT, bundle: `build_xpath: "/Server/Service/Engine/Host2/Alias";` },
  { name: "build_existing", input: TOMCAT, bundle: `build_xpath: "/Server/Service/Engine";` },
  { name: "build_new_root_path", input: "<r/>", bundle: `build_xpath: "/x/y/z";` },
  {
    name: "build_predicate_attr",
    input: TOMCAT,
    bundle: `build_xpath: "/Server/Service[@name='Catalina']/Engine/Host[@name='h2' | @appBase='w2']";`,
  },
  {
    name: "build_three_terms",
    input: "",
    bundle: `build_xpath: "/a/b[@x='1' | @y='2' | z=3]";`,
  },
  { name: "build_not_convergent", input: "<r/>", bundle: `build_xpath: "/r/a[1]";` },
  { name: "build_bad_syntax", input: "<r/>", bundle: `build_xpath: "//r/a";` },
  {
    name: "build_with_select",
    input: "<r/>",
    bundle: `build_xpath: "/r/a" select_xpath => "/r";`,
  },
  { name: "build_two_matches", input: "<r><a/><a/></r>", bundle: `build_xpath: "/r/a/b";` },
  { name: "build_missing_file", bundle: `build_xpath: "/r/a";` },
  {
    name: "build_created_file",
    attributes: `create => "true",`,
    bundle: `build_xpath: "/r/a";`,
  },
  // insert_tree
  {
    name: "insert_into_node",
    input: TOMCAT,
    bundle: `insert_tree: '<Host name="cfe"><Alias>x</Alias></Host>' select_xpath => "/Server/Service/Engine";`,
  },
  {
    name: "insert_existing_subset",
    input: TOMCAT,
    bundle: `insert_tree: '<Host name="localhost"/>' select_xpath => "/Server/Service/Engine";`,
  },
  { name: "insert_empty_file", input: "", bundle: `insert_tree: "<Root a='1'><x/></Root>";` },
  {
    name: "insert_root_same",
    input: "<Root a='1'><x/></Root>",
    bundle: `insert_tree: "<Root a='1'><x/></Root>";`,
  },
  { name: "insert_root_differs", input: "<Root/>", bundle: `insert_tree: "<Other/>";` },
  {
    name: "insert_trailing_newline",
    input: "<zone>\n <short>Public</short>\n</zone>\n",
    bundle: `insert_tree: '<rule family="ipv4">
   <port port="9443"/>
 </rule>
' select_xpath => "/zone";`,
  },
  {
    name: "insert_leading_space",
    input: "<zone><a/></zone>",
    bundle: `insert_tree: "  <rule/>" select_xpath => "/zone";`,
  },
  {
    name: "insert_leading_space_after_text",
    input: "<zone><a/>\n</zone>",
    bundle: `insert_tree: "  <rule/>" select_xpath => "/zone";`,
  },
  { name: "insert_bad_tree", input: "<r/>", bundle: `insert_tree: "<a><b></a>" select_xpath => "/r";` },
  { name: "insert_empty_tree", input: "<r/>", bundle: `insert_tree: "" select_xpath => "/r";` },
  { name: "insert_text_tree", input: "<r/>", bundle: `insert_tree: "just text" select_xpath => "/r";` },
  { name: "insert_select_missing", input: "<r/>", bundle: `insert_tree: "<a/>" select_xpath => "/nope";` },
  { name: "insert_select_empty_file", input: "", bundle: `insert_tree: "<a/>" select_xpath => "/r";` },
  { name: "insert_build_no_select", input: "<r/>", bundle: `insert_tree: "<a/>" build_xpath => "/r/x";` },
  {
    name: "insert_with_build",
    input: "<r><a/></r>\n",
    bundle: `insert_tree: "<q/>" select_xpath => "/r/x/y", build_xpath => "/r/x/y";`,
  },
  {
    name: "insert_two_children",
    input: "<r/>",
    bundle: `insert_tree: "<a/><b/>" select_xpath => "/r";`,
  },
  {
    name: "insert_nested_exact",
    input: "<r><a><b x='1'/></a></r>",
    bundle: `insert_tree: "<a><b x='1'/></a>" select_xpath => "/r";
  insert_tree: "<a><b x='2'/></a>" select_xpath => "/r";`,
  },
  {
    name: "insert_text_subset",
    input: "<r><a>hello world</a></r>",
    bundle: `insert_tree: "<a>world</a>" select_xpath => "/r";
  insert_tree: "<a>planet</a>" select_xpath => "/r";`,
  },
  {
    name: "insert_prefixed",
    input: '<r xmlns:p="urn:p"><p:c/></r>',
    bundle: `insert_tree: "<p:c/>" select_xpath => "/r";`,
  },
  {
    name: "insert_namespace_declared",
    input: "<r/>",
    bundle: `insert_tree: '<p:c xmlns:p="urn:p" p:a="1"/>' select_xpath => "/r";`,
  },
  {
    name: "insert_default_ns_doc",
    input: '<r xmlns="urn:d"><a/></r>',
    bundle: `insert_tree: "<b/>" select_xpath => "/*";`,
  },
  // delete_tree
  {
    name: "delete_tree",
    input: TOMCAT,
    bundle: `delete_tree: '<Host name="localhost"/>' select_xpath => "/Server/Service/Engine";`,
  },
  {
    name: "delete_tree_absent",
    input: TOMCAT,
    bundle: `delete_tree: '<Host name="x"/>' select_xpath => "//Engine";`,
  },
  {
    name: "delete_tree_duplicates",
    input: "<r><a/><a/></r>",
    bundle: `delete_tree: "<a/>" select_xpath => "/r";`,
  },
  { name: "delete_tree_no_select", input: "<r><a/></r>", bundle: `delete_tree: "<a/>";` },
  {
    name: "delete_tree_select_missing",
    input: "<r><a/></r>",
    bundle: `delete_tree: "<a/>" select_xpath => "/x";`,
  },
  {
    name: "delete_tree_with_build",
    input: "<r><a/></r>",
    bundle: `delete_tree: "<b/>" select_xpath => "/r/a", build_xpath => "/r/a/b";`,
  },
  // attributes
  {
    name: "set_attribute",
    input: TOMCAT,
    bundle: `set_attribute: "port" select_xpath => "/Server", attribute_value => "9005";
  set_attribute: "new" select_xpath => "/Server", attribute_value => "a<b&\\"c";`,
  },
  {
    name: "set_attribute_same",
    input: TOMCAT,
    bundle: `set_attribute: "port" select_xpath => "/Server", attribute_value => "8005";`,
  },
  {
    name: "set_attribute_no_value",
    input: "<r/>",
    bundle: `set_attribute: "a" select_xpath => "/r";`,
  },
  {
    name: "set_attribute_empty",
    input: '<r a="" b="x"/>',
    bundle: `set_attribute: "a" select_xpath => "/r", attribute_value => "";
  set_attribute: "b" select_xpath => "/r", attribute_value => "";`,
  },
  {
    name: "set_attribute_prefixed",
    input: '<r xmlns:p="urn:p" p:a="1"/>',
    bundle: `set_attribute: "a" select_xpath => "/r", attribute_value => "2";`,
  },
  {
    name: "set_attribute_qualified",
    input: '<r xmlns:p="urn:p"/>',
    bundle: `set_attribute: "p:a" select_xpath => "/r", attribute_value => "2";`,
  },
  {
    name: "set_attribute_no_select",
    input: "<r/>",
    bundle: `set_attribute: "a" attribute_value => "1";`,
  },
  {
    name: "set_attribute_two_nodes",
    input: "<r><a/><a/></r>",
    bundle: `set_attribute: "x" select_xpath => "//a", attribute_value => "1";`,
  },
  {
    name: "set_attribute_text_node",
    input: "<r>t</r>",
    bundle: `set_attribute: "x" select_xpath => "/r/text()", attribute_value => "1";`,
  },
  {
    name: "set_attribute_relative",
    input: "<r/>",
    bundle: `set_attribute: "x" select_xpath => "r", attribute_value => "1";`,
  },
  {
    name: "set_attribute_bad_xpath",
    input: "<r/>",
    bundle: `set_attribute: "x" select_xpath => "/r[", attribute_value => "1";`,
  },
  {
    name: "set_attribute_not_convergent",
    input: "<r><a/></r>",
    bundle: `set_attribute: "x" select_xpath => "/r/a[last()]", attribute_value => "1";`,
  },
  {
    name: "set_attribute_warn",
    input: "<r/>",
    bundle: `set_attribute: "x" select_xpath => "/r", attribute_value => "1", action => warn_only;`,
  },
  {
    name: "set_attribute_with_build",
    input: "<r/>",
    bundle: `set_attribute: "x" select_xpath => "/r/a/b", build_xpath => "/r/a/b", attribute_value => "1";`,
  },
  {
    name: "delete_attribute",
    input: TOMCAT,
    bundle: `delete_attribute: "defaultHost" select_xpath => "//Engine";
  delete_attribute: "absent" select_xpath => "//Engine";`,
  },
  {
    name: "delete_attribute_prefixed",
    input: '<r xmlns:p="urn:p" p:a="1" a="2"/>',
    bundle: `delete_attribute: "a" select_xpath => "/r";`,
  },
  // text
  { name: "set_text", input: SIMPLE, bundle: `set_text: "new" select_xpath => "/r/a";` },
  { name: "set_text_same", input: SIMPLE, bundle: `set_text: "text" select_xpath => "/r/a";` },
  {
    name: "set_text_element_first",
    input: "<r><a><!-- c --><b/>x<c/></a></r>",
    bundle: `set_text: "T" select_xpath => "/r/a";`,
  },
  { name: "set_text_empty_element", input: "<r><a/></r>", bundle: `set_text: "T" select_xpath => "/r/a";` },
  {
    name: "set_text_entities",
    input: "<r><a/><b>x</b></r>",
    bundle: `set_text: "1 &amp; 2 &lt; 3 &#65;" select_xpath => "/r/a";
  set_text: "1 &amp; 2" select_xpath => "/r/b";`,
  },
  { name: "set_text_markup", input: "<r><a>x</a></r>", bundle: `set_text: "<b>&" select_xpath => "/r/a";` },
  {
    name: "set_text_empty",
    input: "<r><a/><b>x</b></r>",
    bundle: `set_text: "" select_xpath => "/r/a";
  set_text: "" select_xpath => "/r/b";`,
  },
  {
    name: "set_text_cdata",
    input: "<r><a><![CDATA[x]]></a></r>",
    bundle: `set_text: "y" select_xpath => "/r/a";`,
  },
  { name: "insert_text", input: SIMPLE, bundle: `insert_text: " more" select_xpath => "/r/a";` },
  { name: "insert_text_present", input: SIMPLE, bundle: `insert_text: "ex" select_xpath => "/r/a";` },
  {
    name: "insert_text_no_text",
    input: "<r><a><b/><c/></a></r>",
    bundle: `insert_text: "T" select_xpath => "/r/a";`,
  },
  { name: "delete_text", input: SIMPLE, bundle: `delete_text: "ex" select_xpath => "/r/a";` },
  { name: "delete_text_absent", input: SIMPLE, bundle: `delete_text: "zz" select_xpath => "/r/a";` },
  {
    name: "delete_text_element_first",
    input: "<r><a><b>inner</b>x</a></r>",
    bundle: `delete_text: "inner" select_xpath => "/r/a";`,
  },
  { name: "delete_text_no_select", input: SIMPLE, bundle: `delete_text: "x";` },
  // documents
  {
    name: "doc_serialization",
    input: `<?xml version="1.0"?>\n<!-- top -->\n<?pi x?>\n\n<r a="x&#10;y&#9;z&gt;&apos;" b='q"'>caf\u00e9 <![CDATA[<c>]]> &amp; &gt; &#13;\n<e></e><f/><!-- in --><?p?></r>\n<!-- after -->\n`,
    bundle: `set_attribute: "n" select_xpath => "/r", attribute_value => "v\u00e9";`,
  },
  {
    name: "doc_utf8_declared",
    input:
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<r x="\u00e9">caf\u00e9 \u65e5\u672c</r>\n',
    bundle: `set_attribute: "n" select_xpath => "/r", attribute_value => "\u00fc";`,
  },
  {
    name: "doc_latin1",
    input: '<?xml version="1.0" encoding="ISO-8859-1"?>\n<r>x</r>\n',
    bundle: `set_text: "caf\u00e9" select_xpath => "/r";`,
  },
  {
    name: "doc_doctype",
    input:
      '<?xml version="1.0"?>\n<!DOCTYPE web-app PUBLIC "-//Sun//DTD Web 2.3//EN" "http://java.sun.com/dtd/web-app_2_3.dtd">\n<web-app/>\n',
    bundle: `set_attribute: "v" select_xpath => "/web-app", attribute_value => "1";`,
  },
  {
    name: "doc_not_xml",
    input: "not xml at all\n",
    bundle: `set_attribute: "v" select_xpath => "/r", attribute_value => "1";`,
  },
  { name: "doc_not_xml_build", input: "<r>", bundle: `build_xpath: "/r/a";` },
  {
    name: "doc_no_change",
    input: "<r a='1'/>",
    bundle: `set_attribute: "a" select_xpath => "/r", attribute_value => "1";`,
  },
  {
    name: "doc_empty_before_editing",
    input: "<r><old/></r>\n",
    attributes: `edit_defaults => empty,`,
    bundle: `insert_tree: "<new/>";`,
  },
  {
    name: "doc_no_backup",
    input: "<r/>\n",
    attributes: `edit_defaults => nobackup,`,
    bundle: `set_attribute: "a" select_xpath => "/r", attribute_value => "1";`,
  },
  {
    name: "doc_too_big",
    input: `<r>${"x".repeat(200)}</r>`,
    attributes: `edit_defaults => small,`,
    bundle: `set_attribute: "a" select_xpath => "/r", attribute_value => "1";`,
  },
  {
    name: "doc_classes_vars_reports",
    input: "<r/>",
    bundle: `vars: "v" string => "val";
classes: "yes" expression => "any";
set_attribute: "a" select_xpath => "/r", attribute_value => "$(v)", classes => outcome("doc_classes_vars_reports__inner");
reports:
  yes::
    "report in edit_xml $(v)";`,
  },
  {
    name: "doc_order",
    input: "<r><a>t</a></r>",
    bundle: `insert_text: "3" select_xpath => "/r/a";
set_text: "2" select_xpath => "/r/a";
delete_text: "t" select_xpath => "/r/a";
set_attribute: "x" select_xpath => "/r/a", attribute_value => "1";
delete_attribute: "x" select_xpath => "/r/a";
insert_tree: "<b/>" select_xpath => "/r";
delete_tree: "<a/>" select_xpath => "/r";
build_xpath: "/r/c";`,
  },
  {
    name: "doc_outcome_classes",
    input: "<r><a/></r>",
    bundle: `build_xpath: "/r/a" classes => outcome("doc_outcome_classes__build");
insert_tree: "<a/>" select_xpath => "/r", classes => outcome("doc_outcome_classes__kept");
set_attribute: "x" select_xpath => "/nope", attribute_value => "1", classes => outcome("doc_outcome_classes__fail");`,
  },
];

/** Bodies the cases use. */
export const SHARED_BODIES = `
body classes outcome(p)
{
  promise_kept => { "$(p)_kept" };
  promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" };
  repair_denied => { "$(p)_denied" };
  repair_timeout => { "$(p)_timeout" };
}
body action warn_only { action_policy => "warn"; }
body edit_defaults empty { empty_file_before_editing => "true"; }
body edit_defaults nobackup { edit_backup => "false"; }
body edit_defaults small { max_file_size => "100"; }
`;

/** The policy running every case on files in `dir`, each in its own bundle. */
export function casesPolicy(dir: string, cases: readonly XmlCase[] = XML_CASES): string {
  const sequence = cases.map((c) => `"case_${c.name}"`).join(", ");
  const bundles = cases.map(
    (c) => `
bundle agent case_${c.name}
{
files:
  "${dir}/${c.name}.xml"
    ${c.attributes ?? ""}
    classes => outcome("${c.name}__file"),
    edit_xml => x_${c.name};
reports:
  "CASE-END ${c.name} $(with)" with => join(",", sort(classesmatching("${c.name}__.*"), "lex"));
}
bundle edit_xml x_${c.name}
{
${c.bundle}
}
`,
  );
  return `body common control { bundlesequence => { ${sequence} }; }\n${SHARED_BODIES}${bundles.join("")}`;
}

/** What one agent did with every case: per case, its log lines (then its files). */
export interface RecordedRun {
  /** Case name → the lines logged while it ran, ending with its CASE-END report. */
  readonly logs: Record<string, string[]>;
  /** File name → content (JSON string of the bytes read as latin1, to keep them exact). */
  readonly files: Record<string, string>;
}

export interface Recording {
  readonly agent: string;
  readonly first: RecordedRun;
  readonly second: RecordedRun;
}

/** Splits one run's output into the cases it belongs to. */
export function splitLogs(output: string, dir: string): Record<string, string[]> {
  const logs: Record<string, string[]> = {};
  let current: string[] = [];
  for (const raw of output.split("\n")) {
    if (raw === "") continue;
    const line = raw.split(dir).join("D");
    current.push(line);
    const end = /^R: CASE-END (\w+)/.exec(line);
    if (end?.[1]) {
      logs[end[1]] = current;
      current = [];
    }
  }
  if (current.length > 0) logs["(after the last case)"] = current;
  return logs;
}
