/**
 * services scenarios: each a policy run twice by tend and by cf-agent 3.21
 * against the fake init script (harness.ts). `fake_service(service, state)`
 * is a service bundle of the prelude; `show(p)` reports the outcome classes
 * a `classes => outcome(p)` body set.
 */
import type { ServicesScenario } from "./harness.js";

/** A standard_services of the policy's own that hands over to fake_service. */
const OWN_STANDARD = `
bundle agent standard_services(service, state)
{
methods:
  "fake" usebundle => fake_service("$(service)", "$(state)");
reports:
  "standard_services($(service), $(state))";
}`;

export const servicesScenarios: readonly ServicesScenario[] = [
  {
    name: "01-default-standard-services-start",
    main: `services:\n  "web" service_policy => "start", classes => outcome("web");`,
    extra: OWN_STANDARD,
  },
  {
    name: "02-default-policy-is-start",
    main: `services:\n  "web" classes => outcome("web");`,
    extra: OWN_STANDARD,
  },
  {
    name: "03-stop-running",
    system: { "web.state": "running\n" },
    main: `services:\n  "web" service_policy => "stop", classes => outcome("web");`,
    extra: OWN_STANDARD,
  },
  {
    name: "04-start-already-running",
    system: { "web.state": "running\n" },
    main: `services:\n  "web" service_policy => "start", classes => outcome("web");`,
    extra: OWN_STANDARD,
  },
  {
    name: "05-restart",
    system: { "web.state": "running\n" },
    main: `services:\n  "web" service_policy => "restart", classes => outcome("web");`,
    extra: OWN_STANDARD,
  },
  {
    name: "06-reload-running",
    system: { "web.state": "running\n" },
    main: `services:\n  "web" service_policy => "reload", classes => outcome("web");`,
    extra: OWN_STANDARD,
  },
  {
    name: "07-reload-stopped-fails",
    main: `services:\n  "web" service_policy => "reload", classes => outcome("web");`,
    extra: OWN_STANDARD,
  },
  {
    name: "08-enable-and-disable",
    system: { "db.enabled": "" },
    main: `services:\n  "web" service_policy => "enable";\n  "db" service_policy => "disable";`,
    extra: OWN_STANDARD,
  },
  {
    name: "09-custom-policy-passed-through",
    system: { "web.state": "running\n" },
    main: `services:\n  "web" service_policy => "try-restart", classes => outcome("web");`,
    extra: OWN_STANDARD,
  },
  {
    name: "10-special-bundle-core-example",
    main: `services:\n  "my-custom-service" service_method => my_custom_service, service_policy => "stop";`,
    extra: `body service_method my_custom_service { service_type => "generic"; }
bundle agent service_my_custom_service(service, state) { reports: "$(service) should have state $(state)"; }`,
  },
  {
    name: "11-special-bundle-canonified-name",
    main: `services:\n  "my-app.d/x" service_policy => "start";`,
    extra: `bundle agent service_my_app_d_x(s, p) { methods: "f" usebundle => fake_service("app", "$(p)"); reports: "special $(s) $(p)"; }
${OWN_STANDARD}`,
  },
  {
    name: "12-special-common-bundle-is-not-taken",
    main: `services:\n  "web" service_policy => "start";`,
    extra: `bundle common service_web { vars: "x" string => "y"; reports: "common service_web ran"; }
${OWN_STANDARD}`,
  },
  {
    name: "13-service-bundle-in-method-body",
    main: `services:\n  "web" service_policy => "start", service_method => via_fake, classes => outcome("web");`,
    extra: `body service_method via_fake { service_bundle => fake_service("$(this.promiser)", "$(this.service_policy)"); }`,
  },
  {
    name: "14-service-bundle-without-arguments",
    main: `services:\n  "web" service_policy => "stop", service_method => plain;`,
    extra: `body service_method plain { service_bundle => "plain_service"; }
bundle agent plain_service { reports: "plain_service for $(this.promiser)"; }`,
  },
  {
    name: "15-service-bundle-own-arguments",
    main: `services:\n  "web" service_policy => "restart", service_method => own_args;`,
    extra: `body service_method own_args { service_bundle => fake_service("db", "start"); service_args => "--fast"; }`,
  },
  {
    name: "16-missing-standard-services-is-fatal",
    main: `services:\n  "web" service_policy => "start";\nreports:\n  "after";`,
  },
  {
    name: "17-missing-standard-services-ignored",
    control: `ignore_missing_bundles => "true";`,
    main: `services:\n  "web" service_policy => "start", classes => outcome("web");\nreports:\n  "after";`,
  },
  {
    name: "18-depends-on-itself",
    main: `services:\n  "web" service_policy => "start", service_dependencies => { "db", "web" }, classes => outcome("web");`,
    extra: OWN_STANDARD,
  },
  {
    name: "19-windows-service-type",
    main: `services:\n  "web" service_policy => "start", service_method => win, classes => outcome("web");`,
    extra: `body service_method win { service_type => "windows"; }\n${OWN_STANDARD}`,
  },
  {
    name: "20-broken-service-fails",
    system: { "web.broken": "" },
    main: `services:\n  "web" service_policy => "start", classes => outcome("web");`,
    extra: OWN_STANDARD,
  },
  {
    name: "21-warn-only",
    main: `services:\n  "web" service_policy => "start", action => svc_warn_only, classes => outcome("web");`,
    extra: OWN_STANDARD,
  },
  {
    name: "22-iterating-over-services",
    system: { "b.state": "running\n" },
    main: `vars:\n  "all" slist => { "a", "b", "c" };\nservices:\n  "$(all)" service_policy => "start";`,
    extra: OWN_STANDARD,
  },
  {
    name: "23-namespaced-special-bundle",
    main: `methods:\n  "n" usebundle => ns1:main;`,
    extra: `body file control { namespace => "ns1"; }
bundle agent main { services: "web" service_policy => "stop"; "db" service_policy => "start"; }
bundle agent service_web(s, p) { reports: "ns1 special $(s) $(p)"; }
body file control { namespace => "default"; }
${OWN_STANDARD}`,
  },
  {
    name: "24-autostart-and-dependence-chain",
    main: `services:\n  "web" service_policy => "start", service_method => boot;`,
    extra: `body service_method boot { service_autostart_policy => "boot_time"; service_dependence_chain => "start_parent_services"; }
${OWN_STANDARD}`,
  },
  {
    name: "25-guarded-by-if",
    main: `classes:\n  "go" expression => "any";\nservices:\n  "web" service_policy => "start", if => "go";\n  "db" service_policy => "start", if => "!go";`,
    extra: OWN_STANDARD,
  },
  {
    name: "26-service-policy-variable-in-bundle",
    main: `services:\n  "web" service_policy => "$(p)", service_method => via_fake;\nvars:\n  "p" string => "stop";`,
    system: { "web.state": "running\n" },
    extra: `body service_method via_fake { service_bundle => fake_service("$(this.promiser)", "$(this.service_policy)"); }`,
  },
  {
    name: "27-body-named-service-method",
    main: `services:\n  "web" service_policy => "start", service_method => service_method;`,
    extra: `body service_method service_method { service_autostart_policy => "none"; }\n${OWN_STANDARD}`,
  },
  {
    name: "28-mpf-start-stopped",
    mpf: ["fakesvc"],
    main: `services:\n  "fakesvc" service_policy => "start", classes => outcome("s");`,
  },
  {
    name: "29-mpf-stop-running",
    mpf: ["fakesvc"],
    system: { "fakesvc.state": "running\n" },
    main: `services:\n  "fakesvc" service_policy => "stop", classes => outcome("s");`,
  },
  {
    name: "30-mpf-restart-and-reload",
    mpf: ["one", "two"],
    system: { "one.state": "running\n", "two.state": "running\n" },
    main: `services:\n  "one" service_policy => "restart";\n  "two" service_policy => "reload";`,
  },
  {
    name: "31-mpf-missing-init-script",
    mpf: ["fakesvc"],
    main: `services:\n  "absent" service_policy => "start", classes => outcome("s");`,
  },
  {
    name: "32-mpf-systemd-start-enables",
    mpf: ["fakesvc"],
    systemd: true,
    main: `services:\n  "fakesvc" service_policy => "start", classes => outcome("s");`,
  },
  {
    name: "33-mpf-systemd-stop-disables",
    mpf: ["fakesvc"],
    systemd: true,
    system: { "fakesvc.state": "running\n", "fakesvc.enabled": "" },
    main: `services:\n  "fakesvc" service_policy => "stop", classes => outcome("s");`,
  },
  {
    name: "34-mpf-systemd-states",
    mpf: ["one", "two", "three", "four"],
    systemd: true,
    system: { "one.state": "running\n", "two.state": "running\n", "four.absent": "" },
    main: `services:\n  "one" service_policy => "reload";\n  "two" service_policy => "inactive";\n  "three" service_policy => "enabled";\n  "four" service_policy => "start";`,
  },
];
