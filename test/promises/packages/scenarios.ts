/**
 * packages promises run through both tend and cf-agent 3.21 (recorded in
 * test/fixtures/packages/cf-agent.json by scripts/record-packages.ts):
 * package modules (`package_module => fake`) and package_method bodies
 * (`package_method => pm...`), each on a fake system in the scenario's
 * directory (see harness.ts for the fixtures and common bodies).
 */
import type { PackagesScenario } from "./harness.js";

const REPORT_CLASSES = `
  vars:
    "defined" slist => sort(classesmatching(".*_(kept|repaired|failed)"), "lex");
  reports:
    "class $(defined)";`;

const moduleScenarios: PackagesScenario[] = [
  {
    name: "module-present-installs-missing",
    system: { installed: "bash 5.0 x86_64\n" },
    main: `packages:
  "bash" policy => "present", package_module => fake, classes => outcome("bash");
  "zsh" policy => "present", package_module => fake, classes => outcome("zsh");
${REPORT_CLASSES}`,
  },
  {
    name: "module-absent",
    system: { installed: "bash 5.0 x86_64\nnano 2.0 x86_64\n" },
    main: `packages:
  "nano" policy => "absent", package_module => fake, classes => outcome("nano");
  "joe" policy => "absent", package_module => fake, classes => outcome("joe");
${REPORT_CLASSES}`,
  },
  {
    name: "module-version-and-architecture",
    system: { installed: "vim 8.0 x86_64\n" },
    main: `packages:
  "vim" policy => "present", version => "8.0", package_module => fake, classes => outcome("same");
  "vim" policy => "absent", version => "7.0", package_module => fake, classes => outcome("other");
  "gcc" policy => "present", version => "12", architecture => "i386", package_module => fake, classes => outcome("gcc");
${REPORT_CLASSES}`,
  },
  {
    name: "module-latest",
    system: { installed: "vim 8.0 x86_64\ncurl 7.0 x86_64\n", updates: "vim 9.0 x86_64\n" },
    main: `packages:
  "vim" policy => "present", version => "latest", package_module => fake, classes => outcome("vim");
  "curl" policy => "present", version => "latest", package_module => fake, classes => outcome("curl");
${REPORT_CLASSES}`,
  },
  {
    name: "module-errors",
    main: `packages:
  "failing" policy => "present", package_module => fake, classes => outcome("install");
  "broken-data" policy => "present", package_module => fake, classes => outcome("data");
  "x" policy => "present", package_module => missing, classes => outcome("missing");
  "z" version => "1.0", package_module => fake, classes => outcome("nopolicy");
${REPORT_CLASSES}`,
    extra: `body package_module missing { query_installed_ifelapsed => "1"; query_updates_ifelapsed => "1"; module_path => "$(main.r)/no-such-module"; }`,
  },
  {
    name: "module-file-package",
    main: `packages:
  "/srv/pkgs/joe_2.1.pkg" policy => "present", package_module => fake, classes => outcome("joe");
  "/srv/pkgs/ed_1.0.pkg" policy => "present", version => "2.0", package_module => fake, classes => outcome("ed");
${REPORT_CLASSES}`,
  },
  {
    name: "module-warn-only",
    system: { installed: "nano 2.0 x86_64\n" },
    main: `packages:
  "zsh" policy => "present", package_module => fake, action => warn_only, classes => outcome("zsh");
  "nano" policy => "absent", package_module => fake, action => warn_only, classes => outcome("nano");
${REPORT_CLASSES}`,
  },
  {
    name: "module-options-and-inventory",
    control: `package_inventory => { "fake" };`,
    system: { installed: "bash 5.0 x86_64\n", updates: "bash 5.1 x86_64\n" },
    main: `packages:
  "zsh" policy => "present", package_module => fake, options => { "$(d)", "extra" };
vars:
  "p" data => packagesmatching("z.*", ".*", ".*", ".*");
  "u" data => packageupdatesmatching(".*", ".*", ".*", "fake");
reports:
  "installed $(with)" with => format("%S", p);
  "updates $(with)" with => format("%S", u);`,
  },
];

const methodScenarios: PackagesScenario[] = [
  {
    name: "method-add-and-delete",
    system: { installed: "bash-5.0-x86_64\nnano-2.0-x86_64\n" },
    main: `packages:
  "zsh" package_policy => "add", package_method => pm, classes => outcome("zsh");
  "bash" package_policy => "add", package_method => pm, classes => outcome("bash");
  "nano" package_policy => "delete", package_method => pm, classes => outcome("nano");
  "joe" package_policy => "delete", package_method => pm, classes => outcome("joe");
${REPORT_CLASSES}`,
  },
  {
    name: "method-bulk",
    system: { installed: "bash-5.0-x86_64\n" },
    main: `packages:
  "zsh" package_policy => "add", package_method => pm_bulk;
  "curl" package_policy => "add", package_method => pm_bulk;
  "wget" package_policy => "add", package_method => pm_bulk;`,
  },
  {
    name: "method-update-and-addupdate",
    system: {
      installed: "vim-8.0-x86_64\ncurl-7.0-x86_64\n",
      available: "vim-9.0-x86_64\ncurl-7.0-x86_64\ngit-2.0-x86_64\n",
    },
    main: `packages:
  "vim" package_policy => "update", package_version => "9.0", package_select => ">=", package_method => pm, classes => outcome("vim");
  "curl" package_policy => "update", package_version => "7.0", package_method => pm, classes => outcome("curl");
  "git" package_policy => "addupdate", package_version => "2.0", package_method => pm, classes => outcome("git");
  "tar" package_policy => "update", package_version => "1.0", package_method => pm, classes => outcome("tar");
${REPORT_CLASSES}`,
  },
  {
    name: "method-verify",
    system: { installed: "good-1.0-x86_64\nbroken-1.0-x86_64\n" },
    main: `packages:
  "good" package_policy => "verify", package_method => pm, classes => outcome("good");
  "broken" package_policy => "verify", package_method => pm, classes => outcome("broken");
  "absent" package_policy => "verify", package_method => pm, classes => outcome("absent");
${REPORT_CLASSES}`,
  },
  {
    name: "method-conventions-and-regexes",
    system: { installed: "vim-8.0-x86_64\n" },
    main: `packages:
  "vim" package_policy => "delete", package_method => pm_convention, classes => outcome("vim");
  "zsh" package_policy => "add", package_version => "5.9", package_architectures => { "i386" }, package_method => pm_convention, classes => outcome("zsh");
${REPORT_CLASSES}`,
  },
  {
    name: "method-failures",
    main: `packages:
  "failing" package_policy => "add", package_method => pm, classes => outcome("add");
  "x" package_policy => "add", package_method => incomplete, classes => outcome("incomplete");
  "y" package_policy => "add", package_method => pm_noshell, classes => outcome("noshell");
${REPORT_CLASSES}`,
    extra: `body package_method incomplete { package_list_command => "/bin/true"; package_list_name_regex => "(.*)"; }`,
  },
  {
    name: "method-patch",
    system: {
      installed: "bash-5.0-x86_64\n",
      patches: "bash-5.1-x86_64 installed\nssl-3.0-x86_64 available\nssl-3.0-x86_64 installed\n",
    },
    main: `packages:
  "bash" package_policy => "patch", package_method => pm_patch, classes => outcome("bash");
  "ssl" package_policy => "patch", package_version => "3.1", package_method => pm_patch, classes => outcome("ssl");
  "zlib" package_policy => "patch", package_method => pm_patch, classes => outcome("zlib");
${REPORT_CLASSES}`,
  },
  {
    name: "method-multiline-list",
    system: {
      multi: "Package: bash\nVersion: 5.0\nArch: x86_64\nPackage: vim\nVersion: 8.0\nPackage: joe\n",
    },
    main: `packages:
  "bash" package_policy => "delete", package_method => pm_multiline, classes => outcome("bash");
  "vim" package_policy => "add", package_method => pm_multiline, classes => outcome("vim");
  "joe" package_policy => "add", package_method => pm_multiline, classes => outcome("joe");
vars:
  "p" data => packagesmatching(".*", ".*", ".*", ".*");
reports:
  "inventory $(with)" with => format("%S", p);
${REPORT_CLASSES}`,
  },
  {
    name: "method-version-commands-and-reinstall",
    system: { installed: "app-9-x86_64\ntool-3-x86_64\n", available: "app-10-x86_64\ntool-3-x86_64\n" },
    main: `packages:
  "app" package_policy => "update", package_version => "10", package_select => ">=", package_method => pm_numeric, classes => outcome("app");
  "tool" package_policy => "reinstall", package_version => "3", package_method => pm, classes => outcome("tool");
  "tool" package_policy => "addupdate", package_version => "2", package_select => "<=", package_method => pm_numeric, classes => outcome("old");
${REPORT_CLASSES}`,
  },
  {
    name: "method-warn-and-inventory",
    system: { installed: "bash-5.0-x86_64\n" },
    main: `packages:
  "zsh" package_policy => "add", package_method => pm, action => warn_only, classes => outcome("zsh");
vars:
  "p" data => packagesmatching(".*", ".*", ".*", ".*");
reports:
  "inventory $(with)" with => format("%S", p);
${REPORT_CLASSES}`,
  },
];

export const packagesScenarios: PackagesScenario[] = [...moduleScenarios, ...methodScenarios];
