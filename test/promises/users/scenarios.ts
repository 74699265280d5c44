/**
 * users scenarios run through tend and cf-agent 3.21 (differential.test.ts).
 * Accounts made by a setup get a real hash, since 3.21 unlocks a bare `!`
 * (what useradd leaves) to an empty password, where tend does not
 * (deviations.test.ts pins that).
 */
import type { UsersScenario } from "./harness.js";

const HASH = "$6$salt$abcdefghijklmnopqrstuv";
const OTHER_HASH = "$6$pepper$zyxwvutsrqponmlkjihgfe";

/** A setup line making an account with a password hash (and more useradd options). */
function account(name: string, options = ""): string {
  return `useradd ${options} ${name}\necho '${name}:${HASH}' | chpasswd -e`;
}

export const usersScenarios: readonly UsersScenario[] = [
  {
    name: "create-minimal",
    main: `users: "tu1" policy => "present", classes => c("x");`,
    users: ["tu1"],
  },
  {
    name: "create-every-attribute",
    main: `users: "tu1" policy => "present", uid => "4101", description => "Test User",
  home_dir => "/home/elsewhere", group_primary => "users", groups_secondary => { "adm", "sys" },
  shell => "/bin/bash", classes => c("x");`,
    users: ["tu1"],
    groups: ["users", "adm", "sys"],
  },
  {
    name: "create-groups-by-gid",
    main: `users: "tu1" policy => "present", group_primary => "100", groups_secondary => { "3", "adm" }, classes => c("x");`,
    users: ["tu1"],
    groups: ["users", "adm", "sys"],
  },
  {
    name: "create-empty-attributes",
    main: `users: "tu1" policy => "present", description => "", groups_secondary => { }, classes => c("x");`,
    users: ["tu1"],
  },
  {
    name: "create-locked",
    main: `users: "tu1" policy => "locked", classes => c("x");`,
    users: ["tu1"],
  },
  {
    name: "create-locked-ignores-password",
    main: `users: "tu1" policy => "locked", password => pw("plaintext", "Locked0ut!"), classes => c("x");`,
    users: ["tu1"],
  },
  {
    name: "create-hashed-password",
    main: `users: "tu1" policy => "present", password => pw("hash", "${OTHER_HASH}"), classes => c("x");`,
    users: ["tu1"],
  },
  {
    name: "create-plaintext-password",
    main: `users: "tu1" policy => "present", password => pw("plaintext", "Plain0Text!"), classes => c("x");`,
    users: ["tu1"],
    plaintext: ["Plain0Text!"],
  },
  {
    name: "create-home-bundle",
    main: `users: "tu1" policy => "present", home_dir => "/home/tu1", home_bundle => make_home("tu1"), classes => c("x");`,
    users: ["tu1"],
  },
  {
    name: "create-home-bundle-inherit",
    main: `classes: "from_caller" expression => "any";
users: "tu1" policy => "present", home_bundle => inherited("tu1"), home_bundle_inherit => "true", classes => c("x");
  "tu2" policy => "present", home_bundle => inherited("tu2"), classes => c("x2");`,
    extra: `bundle agent inherited(u) {
reports:
  from_caller::
    "$(u) sees the caller's classes";
  !from_caller::
    "$(u) does not";
}`,
    users: ["tu1", "tu2"],
  },
  {
    name: "home-bundle-existing-user",
    setup: account("tu1"),
    main: `users: "tu1" policy => "present", home_bundle => make_home("tu1"), classes => c("x");`,
    users: ["tu1"],
  },
  {
    name: "modify-uid-shell-description-home",
    setup: account("tu1", "-u 4201 -s /bin/sh -c Old"),
    main: `users: "tu1" policy => "present", uid => "4202", shell => "/bin/bash", description => "New name",
  home_dir => "/srv/tu1", classes => c("x");`,
    users: ["tu1"],
  },
  {
    name: "modify-primary-group",
    setup: account("tu1"),
    main: `users: "tu1" policy => "present", group_primary => "users", classes => c("x");`,
    users: ["tu1"],
    groups: ["users"],
  },
  {
    name: "modify-secondary-groups",
    setup: `${account("tu1")}\nusermod -G adm,sys tu1\n${account("tu2")}\nusermod -G adm tu2`,
    main: `users: "tu1" policy => "present", groups_secondary => { "sys", "users" }, classes => c("x");
  "tu2" policy => "present", groups_secondary => { }, classes => c("x2");`,
    users: ["tu1", "tu2"],
    groups: ["adm", "sys", "users"],
  },
  {
    name: "secondary-groups-not-given-stay",
    setup: `${account("tu1")}\nusermod -G adm tu1`,
    main: `users: "tu1" policy => "present", shell => "/bin/bash", classes => c("x");`,
    users: ["tu1"],
    groups: ["adm"],
  },
  {
    name: "modify-missing-secondary-group-ignored",
    setup: account("tu1"),
    main: `users: "tu1" policy => "present", groups_secondary => { "no_such_group", "adm" }, classes => c("x");`,
    users: ["tu1"],
    groups: ["adm"],
  },
  {
    name: "lock-existing",
    setup: account("tu1"),
    main: `users: "tu1" policy => "locked", classes => c("x");`,
    users: ["tu1"],
  },
  {
    name: "unlock-by-present",
    setup: `${account("tu1")}\nusermod -L -e 1970-01-02 tu1`,
    main: `users: "tu1" policy => "present", classes => c("x");`,
    users: ["tu1"],
  },
  {
    name: "unlock-with-new-password",
    setup: `${account("tu1")}\nusermod -L -e 1970-01-02 tu1`,
    main: `users: "tu1" policy => "present", password => pw("hash", "${OTHER_HASH}"), classes => c("x");`,
    users: ["tu1"],
  },
  {
    name: "modify-hashed-password",
    setup: account("tu1"),
    main: `users: "tu1" policy => "present", password => pw("hash", "${OTHER_HASH}"), classes => c("x");
  "tu1" policy => "present", password => pw("hash", "${OTHER_HASH}"), uid => "4301", classes => c("x2");`,
    users: ["tu1"],
  },
  {
    name: "modify-plaintext-password",
    setup: `${account("tu1")}\n${account("tu2")}\necho 'tu2:Same0Pass!' | chpasswd`,
    main: `users: "tu1" policy => "present", password => pw("plaintext", "New0Pass!"), classes => c("x");
  "tu2" policy => "present", password => pw("plaintext", "Same0Pass!"), classes => c("x2");`,
    users: ["tu1", "tu2"],
    plaintext: ["New0Pass!", "Same0Pass!"],
  },
  {
    name: "absent",
    setup: account("tu1"),
    main: `users: "tu1" policy => "absent", classes => c("x");
  "tu2" policy => "absent", classes => c("x2");`,
    users: ["tu1", "tu2"],
  },
  {
    name: "already-kept",
    setup: `${account("tu1", "-u 4401 -g users -G adm -s /bin/bash -c Kept -d /home/kept")}`,
    main: `users: "tu1" policy => "present", uid => "4401", group_primary => "users", groups_secondary => { "adm" },
  shell => "/bin/bash", description => "Kept", home_dir => "/home/kept", password => pw("hash", "${HASH}"), classes => c("x");`,
    users: ["tu1"],
    groups: ["adm", "users"],
  },
  {
    name: "dry-run",
    setup: `${account("tu1")}\n${account("tu2")}\n${account("tu3")}\n${account("tu4")}`,
    args: ["-n"],
    main: `users: "tu0" policy => "present", classes => c("x0");
  "tu1" policy => "present", shell => "/bin/bash", classes => c("x1");
  "tu2" policy => "locked", shell => "/bin/bash", classes => c("x2");
  "tu3" policy => "absent", classes => c("x3");
  "tu4" policy => "present", password => pw("hash", "${OTHER_HASH}"), classes => c("x4");`,
    users: ["tu0", "tu1", "tu2", "tu3", "tu4"],
  },
  {
    name: "action-warn",
    setup: account("tu1"),
    main: `users: "tu0" policy => "present", action => warn_only, classes => c("x0");
  "tu1" policy => "present", uid => "4501", action => warn_only, classes => c("x1");`,
    users: ["tu0", "tu1"],
  },
  {
    name: "unknown-primary-group",
    setup: account("tu1"),
    main: `users: "tu1" policy => "present", group_primary => "no_such_group", classes => c("x");
  "tu2" policy => "present", group_primary => "no_such_group", classes => c("x2");`,
    users: ["tu1", "tu2"],
  },
  {
    name: "unknown-secondary-group-on-create",
    main: `users: "tu1" policy => "present", groups_secondary => { "adm", "no_such_group" }, classes => c("x");`,
    users: ["tu1"],
    groups: ["adm"],
  },
  {
    name: "uid-taken",
    setup: `${account("tu1", "-u 4601")}\n${account("tu2", "-u 4602")}`,
    main: `users: "tu3" policy => "present", uid => "4601", classes => c("x");
  "tu2" policy => "present", uid => "4601", classes => c("x2");`,
    users: ["tu1", "tu2", "tu3"],
  },
  {
    name: "refused-promises",
    main: `users: "tu1" classes => c("x");
  "tu2" policy => "present", password => only_format("hash"), classes => c("x2");
  "tu3" policy => "present", password => only_data("${HASH}"), classes => c("x3");`,
    users: ["tu1", "tu2", "tu3"],
  },
  {
    name: "values-the-tools-refuse",
    setup: account("tu4"),
    main: `users: "tu1" policy => "present", description => "with:colon", classes => c("x1");
  "tu2" policy => "present", shell => "/bin/no_such_shell", classes => c("x2");
  "tu3" policy => "present", uid => "-5", classes => c("x3");
  "tu4" policy => "present", uid => "-5", description => "with:colon", classes => c("x4");`,
    users: ["tu1", "tu2", "tu3", "tu4"],
  },
  {
    name: "home-bundle-missing",
    main: `users: "tu1" policy => "present", home_bundle => no_such_bundle("tu1"), password => pw("hash", "${OTHER_HASH}"), classes => c("x");`,
    users: ["tu1"],
  },
];
