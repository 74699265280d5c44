// The directives and rules of WriteTechniquesTest's cases (NodeConfigData.scala,
// WriteTechniquesTest.scala), shared by the tests of test/rudder/generate/.
export interface D {
  id: string;
  name: string;
  technique: string;
  version: string;
  values?: Record<string, string | string[]>;
  priority?: number;
  mode?: "enforce" | "audit";
}
export interface R {
  id: string;
  name: string;
  directives: string[];
}

export const pkg: D = {
  id: "16617aa8-1f02-4e4a-87b6-d0bcdfb4019f",
  name: "Package management.",
  technique: "packageManagement",
  version: "1.0",
  values: {
    PACKAGE_LIST: "htop",
    PACKAGE_STATE: "present",
    PACKAGE_VERSION: "latest",
    PACKAGE_VERSION_SPECIFIC: "",
    PACKAGE_ARCHITECTURE: "default",
    PACKAGE_ARCHITECTURE_SPECIFIC: "",
    PACKAGE_MANAGER: "default",
    PACKAGE_POST_HOOK_COMMAND: "",
  },
  priority: 0,
  mode: "enforce",
};
export const ncf1: D = {
  id: "16d86a56-93ef-49aa-86b7-0d10102e4ea9",
  name: "Create a file",
  technique: "Create_file",
  version: "1.0",
  values: {
    "expectedReportKey Directory create": "directory_create_/tmp/foo",
    "expectedReportKey File create": "file_create_/tmp/foo/bar",
    "1AAACD71-C2D5-482C-BCFF-5EEE6F8DA9C2": '"foo',
  },
  priority: 0,
  mode: "enforce",
};
const fileTemplate = (
  id: string,
  name: string,
  dest: string,
  perms: string,
  persist: string,
  hook: string,
): D => ({
  id,
  name,
  technique: "fileTemplate",
  version: "1.0",
  values: {
    FILE_TEMPLATE_RAW_OR_NOT: "Raw",
    FILE_TEMPLATE_TEMPLATE: "",
    FILE_TEMPLATE_RAW_TEMPLATE: "some content",
    FILE_TEMPLATE_AGENT_DESTINATION_PATH: dest,
    FILE_TEMPLATE_TEMPLATE_TYPE: "mustache",
    FILE_TEMPLATE_OWNER: "root",
    FILE_TEMPLATE_GROUP_OWNER: "root",
    FILE_TEMPLATE_PERMISSIONS: perms,
    FILE_TEMPLATE_PERSISTENT_POST_HOOK: persist,
    FILE_TEMPLATE_TEMPLATE_POST_HOOK_COMMAND: hook,
  },
  priority: 0,
  mode: "enforce",
});
export const ft1 = fileTemplate(
  "e9a1a909-2490-4fc9-95c3-9d0aa01717c9",
  "10-File template 1",
  "/tmp/destination.txt",
  "700",
  "false",
  "",
);
export const ft2 = fileTemplate(
  "99f4ef91-537b-4e03-97bc-e65b447514cc",
  "20-File template 2",
  "/tmp/other-destination.txt",
  "777",
  "true",
  "/bin/true",
);
export const clock: D = {
  id: "directive1+rev1",
  name: "10. Clock Configuration",
  technique: "clockConfiguration",
  version: "3.0",
  values: {
    CLOCK_FQDNNTP: "",
    CLOCK_HWSYNC_ENABLE: "true",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Rudder's parameter syntax
    CLOCK_NTPSERVERS: "${rudder.param.ntpserver}",
    CLOCK_SYNCSCHED: "240",
    CLOCK_TIMEZONE: "dontchange",
  },
  priority: 0,
  mode: "enforce",
};
export const rpm: D = {
  id: "directive2",
  name: "20. Install PLOP STACK main rpm",
  technique: "rpmPackageInstallation",
  version: "7.0",
  values: {
    RPM_PACKAGE_CHECK_INTERVAL: "5",
    RPM_PACKAGE_POST_HOOK_COMMAND: ["", "", ""],
    RPM_PACKAGE_POST_HOOK_RUN: ["false", "false", "false"],
    RPM_PACKAGE_REDACTION: ["add", "add", "add"],
    RPM_PACKAGE_REDLIST: ["plop", "foo", "bar"],
    RPM_PACKAGE_VERSION: ["", "", ""],
    RPM_PACKAGE_VERSION_CRITERION: ["==", "==", "=="],
    RPM_PACKAGE_VERSION_DEFINITION: ["default", "default", "default"],
  },
  priority: 0,
  mode: "audit",
};
export const gvd = (id: string, name: string, content: string, priority: number): D => ({
  id,
  name,
  technique: "genericVariableDefinition",
  version: "2.0",
  values: { GENERIC_VARIABLE_NAME: "var1", GENERIC_VARIABLE_CONTENT: content },
  priority,
  mode: "enforce",
});
export const copyGit = (i: number): D => ({
  id: `directive-copyGitFile${i}`,
  name: "Copy git file",
  technique: "copyGitFile",
  version: "2.3",
  values: {
    COPYFILE_NAME: `file_name_${i}.json`,
    COPYFILE_EXCLUDE_INCLUDE_OPTION: "none",
    COPYFILE_EXCLUDE_INCLUDE: "",
    COPYFILE_DESTINATION: `/tmp/destination_${i}.json`,
    COPYFILE_RECURSION: `${i % 2}`,
    COPYFILE_PURGE: "false",
    COPYFILE_COMPARE_METHOD: "mtime",
    COPYFILE_OWNER: "root",
    COPYFILE_GROUP: "root",
    COPYFILE_PERM: "644",
    COPYFILE_SUID: "false",
    COPYFILE_SGID: "false",
    COPYFILE_STICKY_FOLDER: "false",
    COPYFILE_POST_HOOK_RUN: "true",
    COPYFILE_POST_HOOK_COMMAND: `/bin/echo Value_${i}.json`,
  },
  priority: 0,
  mode: "enforce",
});

const R50NCF = "208716db-2675-43b9-ab57-bfbab84346aa";
const R60 = "ff44fb97-b65e-43c4-b8c2-0df8d5e8549f";
const GLOBAL = "10. Global configuration for all nodes";

export const CASES: { name: string; directives: D[]; rules: R[] }[] = [
  {
    name: "node-cfe-with-two-directives",
    directives: [pkg, ncf1],
    rules: [
      { id: R60, name: "60-rule-technique-std-lib", directives: [pkg.id] },
      { id: R50NCF, name: "50-rule-technique-ncf", directives: [ncf1.id] },
    ],
  },
  {
    name: "root-with-one-multipolicy",
    directives: [ft1, ft2],
    rules: [
      { id: R60, name: "60-rule-technique-std-lib", directives: [ft1.id, ft2.id] },
      { id: "ff44fb97-b65e-43c4-b8c2-000000000000", name: "99-rule-technique-std-lib", directives: [ft2.id] },
    ],
  },
  {
    name: "node-gen-var-def-override",
    directives: [
      gvd("directive1", "99. Generic Variable Def #1", "value from gvd #1 should be first", 0),
      gvd("directive2", "00. Generic Variable Def #2", "value from gvd #2 should be last", 10),
    ],
    rules: [{ id: "rule1", name: GLOBAL, directives: ["directive1", "directive2"] }],
  },
  {
    name: "root-with-two-directives",
    directives: [clock, rpm],
    rules: [
      { id: "rule1", name: GLOBAL, directives: [clock.id] },
      { id: "rule2", name: "50. Deploy PLOP STACK", directives: [rpm.id] },
    ],
  },
  { name: "root-default-install", directives: [], rules: [] },
  {
    name: "root-sys-var-false",
    directives: [
      {
        id: "directive1",
        name: "10. test18205",
        technique: "test_18205",
        version: "1.0",
        priority: 0,
        mode: "enforce",
      },
    ],
    rules: [{ id: "rule1", name: GLOBAL, directives: ["directive1"] }],
  },
  {
    name: "node-cfe-with-500-directives",
    directives: Array.from({ length: 500 }, (_, i) => copyGit(i + 1)),
    rules: [
      {
        id: "rulecopyGitFile",
        name: "90-copy-git-file",
        directives: Array.from({ length: 500 }, (_, i) => `directive-copyGitFile${i + 1}`),
      },
    ],
  },
];

/** WriteTechniquesTest's technique-and-revisions: the clock directive alone (its technique version is set by the test). */
export const REVISIONS_CASE: (typeof CASES)[number] = {
  name: "technique-and-revisions",
  directives: [clock],
  rules: [{ id: "rule1", name: GLOBAL, directives: [clock.id] }],
};
