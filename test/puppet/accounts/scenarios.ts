/**
 * Differential scenarios of Puppet's user, group, cron and host types,
 * run in a users sandbox (test/promises/users/sandbox.ts): a manifest,
 * a setup script run in the sandbox first (accounts, crontabs, hosts
 * lines that exist before), and the runs (a second run must change
 * nothing; noop runs change nothing).
 */
export interface AccountsScenario {
  readonly name: string;
  readonly manifest: string;
  readonly setup?: string;
  readonly runs: readonly { readonly noop?: boolean }[];
}

const twice = [{}, {}];

export const SCENARIOS: readonly AccountsScenario[] = [
  {
    name: "group-create-remove",
    setup: "groupadd -g 2500 olddevs",
    manifest: `group { 'devs': ensure => present, gid => 2001 }
group { 'sys1': ensure => present, system => true, gid => 1990 }
group { 'olddevs': ensure => absent }
group { 'never': ensure => absent }`,
    runs: twice,
  },
  {
    name: "user-create-managehome",
    manifest: `group { 'devs': gid => 2001 }
user { 'alice': ensure => present, uid => 2001, gid => 'devs', home => '/home/alice', managehome => true,
  shell => '/bin/bash', comment => 'Alice', groups => ['users'], require => Group['devs'] }
user { 'bob': ensure => present, uid => 2002, gid => 100 }`,
    runs: twice,
  },
  {
    name: "user-modify",
    setup:
      "groupadd -g 2001 devs && useradd -u 2001 -g devs -G users -c Alice -d /home/alice -s /bin/bash alice",
    manifest: `user { 'alice': uid => 2002, gid => 'users', home => '/home/alice2', shell => '/bin/sh',
  comment => 'Alice B', groups => ['devs'], membership => inclusive, expiry => '2030-01-01' }`,
    runs: twice,
  },
  {
    name: "user-groups-minimum",
    setup: "groupadd -g 2001 devs && groupadd -g 2002 ops && useradd -u 2001 -G users,ops alice",
    manifest: `user { 'alice': groups => ['devs', 'users'] }`,
    runs: twice,
  },
  {
    name: "user-remove",
    setup: "useradd -u 2001 -m -d /home/alice alice && useradd -u 2002 -m -d /home/bob bob",
    manifest: `user { 'alice': ensure => absent, managehome => true }
user { 'bob': ensure => absent }
user { 'nobody2': ensure => absent }`,
    runs: twice,
  },
  {
    name: "user-password-expiry",
    setup: "useradd -u 2001 alice && usermod -e 2031-05-06 alice",
    manifest: `user { 'alice': password => '$6$salt$hashhashhash', expiry => absent }
user { 'carol': ensure => present, uid => 2003, password => '$6$x$y', expiry => '2029-12-31' }`,
    runs: twice,
  },
  {
    name: "user-failures",
    setup: "useradd -u 2001 alice",
    manifest: `user { 'alice': gid => 'nosuchgroup' }
user { 'dave': ensure => present, uid => 2001 }
user { 'erin': ensure => present, shell => '/bin/nosuchshell' }`,
    runs: [{}],
  },
  {
    name: "cron-create",
    manifest: `cron { 'backup': command => '/usr/bin/backup', user => 'root', hour => 2, minute => 30 }
cron { 'env': command => '/bin/true', user => 'root', special => 'daily', environment => ['PATH=/bin', 'MAILTO=x'] }
cron { 'weekly': command => 'run --weekly', user => 'root', weekday => ['Mon', 'fri'], month => 'jan', minute => '*/10' }`,
    runs: twice,
  },
  {
    name: "cron-modify",
    setup: `printf '%s\\n' '# my own job' '5 * * * * /bin/mine' '# Puppet Name: backup' '30 2 * * * /usr/bin/backup' '# Puppet Name: env' 'PATH=/bin' '@daily /bin/true' '# Puppet Name: old' '0 0 * * * /bin/old' '0 1 * * * /bin/adopt' | crontab -u root -`,
    manifest: `cron { 'backup': command => '/usr/bin/backup2', user => 'root', hour => [3, 4], minute => 30, weekday => 'Mon' }
cron { 'env': command => '/bin/true', user => 'root', special => 'weekly', environment => ['PATH=/usr/bin'] }
cron { 'old': ensure => absent, user => 'root' }
cron { 'adopt': command => '/bin/adopt', user => 'root', hour => 1, minute => 0 }`,
    runs: twice,
  },
  {
    name: "host-entries",
    manifest: `host { 'db.example': ip => '10.0.0.5', host_aliases => ['db', 'database'], comment => 'the db' }
host { 'ip6.example': ip => '2001:db8::5' }
host { 'old.example': ensure => absent }
host { 'web.example': ip => '10.0.0.8', host_aliases => 'web' }
host { 'localhost': ip => '127.0.0.1' }`,
    setup:
      "printf '%s\\n' '127.0.0.1 localhost' '# a comment' '10.0.0.7 old.example old' '10.0.0.9 web.example www # front' >> /etc/hosts",
    runs: twice,
  },
  {
    name: "noop-accounts",
    setup: "useradd -u 2001 -s /bin/bash alice && printf '10.0.0.5 db.example\\n' >> /etc/hosts",
    manifest: `user { 'alice': uid => 2005, shell => '/bin/sh' }
group { 'devs': gid => 2001 }
host { 'db.example': ip => '10.0.0.6' }
cron { 'backup': command => '/usr/bin/backup', user => 'root', hour => 2 }`,
    runs: [{ noop: true }, {}],
  },
];
