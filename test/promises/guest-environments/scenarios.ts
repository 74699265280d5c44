/**
 * guest_environments scenarios. cf-agent 3.21 reaches libvirt's in-memory
 * test hypervisor (`test`, `test_net`, or no type) afresh in each run;
 * every other hypervisor is unreachable here. `o("x")` classes show each
 * promise's outcome.
 */
import type { GuestScenario } from "./harness.js";

const test = (promiser: string, attrs: string) =>
  `  "${promiser}" environment_type => "test", environment_host => "any", ${attrs};`;

export const guestScenarios: readonly GuestScenario[] = [
  {
    name: "01-test-running-kept",
    promises: test("test", `environment_state => "running", classes => o("a")`),
    show: ["a"],
  },
  {
    name: "02-suspend-then-resume",
    promises: [
      test("test", `environment_state => "suspended", classes => o("a")`),
      test("test", `environment_state => "running", classes => o("b"), handle => "h2"`),
    ].join("\n"),
    show: ["a", "b"],
  },
  {
    name: "03-create-then-down",
    promises: [
      test("vm1", `environment_state => "create", classes => o("a")`),
      test("vm1", `environment_state => "down", classes => o("b"), handle => "h2"`),
    ].join("\n"),
    show: ["a", "b"],
  },
  {
    name: "04-running-recreates",
    promises: test("vm2", `environment_state => "running", classes => o("a")`),
    show: ["a"],
  },
  {
    name: "05-create-existing",
    promises: test("test", `environment_state => "create", classes => o("a")`),
    show: ["a"],
  },
  {
    name: "06-delete-then-boot",
    promises: [
      test("test", `environment_state => "delete", classes => o("a")`),
      test("test", `environment_state => "running", classes => o("b"), handle => "h2"`),
    ].join("\n"),
    show: ["a", "b"],
  },
  {
    name: "07-delete-missing",
    promises: test("nosuch", `environment_state => "delete", classes => o("a")`),
    show: ["a"],
  },
  {
    name: "08-suspend-missing-and-down",
    promises: [
      test("nosuch", `environment_state => "suspended", classes => o("a")`),
      test("test", `environment_state => "down", classes => o("b")`),
      test("test", `environment_state => "suspended", classes => o("c"), handle => "h3"`),
    ].join("\n"),
    show: ["a", "b", "c"],
  },
  {
    name: "09-not-this-host-goes-down",
    promises: `  "test" environment_type => "test", environment_host => "some_other_host", environment_state => "running", classes => o("a");`,
    show: ["a"],
  },
  {
    name: "10-not-this-host-suspended",
    promises: `  "test" environment_type => "test", environment_host => "some_other_host", environment_state => "suspended", classes => o("a");`,
    show: ["a"],
  },
  {
    name: "11-resources-on-create",
    promises: [
      test(
        "vm1",
        `environment_state => "create", environment_resources => r("1", "1048576"), classes => o("a")`,
      ),
      test(
        "vm2",
        `environment_state => "create", environment_resources => r("4", "99999999"), classes => o("b")`,
      ),
      test(
        "vm3",
        `environment_state => "create", environment_resources => r("64", "1000"), classes => o("c")`,
      ),
    ].join("\n"),
    show: ["a", "b", "c"],
  },
  {
    name: "12-resources-on-running",
    promises: [
      test(
        "test",
        `environment_state => "running", environment_resources => r("1", "1048576"), classes => o("a")`,
      ),
      test(
        "test",
        `environment_state => "running", environment_resources => r("3", "99999999"), classes => o("b"), handle => "h2"`,
      ),
    ].join("\n"),
    show: ["a", "b"],
  },
  {
    name: "13-networks",
    promises: [
      `  "default" environment_type => "test_net", environment_host => "any", environment_state => "create", classes => o("a");`,
      `  "net2" environment_type => "test_net", environment_host => "any", environment_state => "create", classes => o("b");`,
      `  "default" environment_type => "test_net", environment_host => "any", environment_state => "delete", classes => o("c"), handle => "h3";`,
      `  "default" environment_type => "test_net", environment_host => "any", environment_state => "delete", classes => o("d"), handle => "h4";`,
      `  "nonet" environment_type => "test_net", environment_host => "any", environment_state => "delete", classes => o("e");`,
      `  "x" environment_type => "test_net", environment_host => "any", environment_state => "running", classes => o("f");`,
    ].join("\n"),
    show: ["a", "b", "c", "d", "e", "f"],
  },
  {
    name: "14-no-type-is-test-create",
    promises: `  "vm9" environment_host => "any", classes => o("a");`,
    show: ["a"],
  },
  {
    name: "15-unreachable-hypervisors",
    promises: [
      `  "vm1" environment_type => "kvm", environment_host => "any", environment_state => "running", classes => o("a");`,
      `  "vm2" environment_type => "xen", environment_host => "any", environment_state => "down", classes => o("b");`,
      `  "vm3" environment_type => "vbox", environment_host => "any", environment_state => "create", classes => o("c");`,
      `  "n1" environment_type => "kvm_net", environment_host => "any", environment_state => "create", classes => o("d");`,
    ].join("\n"),
    show: ["a", "b", "c", "d"],
  },
  {
    name: "16-unsupported-and-no-op-types",
    promises: [
      `  "i1" environment_type => "ec2", environment_host => "any", environment_state => "running", classes => o("a");`,
      `  "z1" environment_type => "zone", environment_host => "any", environment_state => "running", classes => o("b");`,
      `  "e1" environment_type => "eucalyptus", environment_host => "any", classes => o("c");`,
    ].join("\n"),
    show: ["a", "b", "c"],
  },
  { name: "17-no-host", promises: `  "vm1" environment_type => "kvm", classes => o("a");`, show: ["a"] },
  {
    name: "18-spec-and-resources-conflict",
    promises: test("vm1", `environment_resources => spec_and_cpus, classes => o("a")`),
    show: ["a"],
  },
  {
    name: "19-network-with-resources",
    promises: `  "net3" environment_type => "test_net", environment_host => "any", environment_state => "create", environment_interface => iface, classes => o("a");`,
    show: ["a"],
  },
  {
    name: "20-create-from-spec",
    promises: [
      test(
        "fromspec",
        `environment_state => "create", environment_resources => spec("<domain type='test'><name>fromspec</name><memory>1024</memory><os><type>hvm</type></os></domain>"), classes => o("a")`,
      ),
      test(
        "bad",
        `environment_state => "create", environment_resources => spec("<domain type='test'><name>test</name><memory>1024</memory><os><type>hvm</type></os></domain>"), classes => o("b")`,
      ),
    ].join("\n"),
    show: ["a", "b"],
  },
];
