/**
 * Storage scenarios run through cf-agent 3.21 and tend in the sandbox
 * (sandbox.ts). `$R` is the sandbox's root; mount points live in
 * `$R/arena`. Each promise tagged `t` defines `t_kept`, `t_repaired` or
 * `t_failed` (interrupted counts as failed) and reports them. Where tend
 * deliberately does better than 3.21, `differs` says why and what each
 * agent leaves.
 */
import type { RunView } from "./sandbox.js";

export interface StorageScenario {
  readonly name: string;
  /** Promises of `bundle agent main` (storage: and anything else). */
  readonly main: string;
  /** Tags whose outcome classes are reported. */
  readonly tags: readonly string[];
  readonly setup?: string;
  readonly teardown?: string;
  readonly fstab?: string;
  /** Agent options besides -K and -I. */
  readonly flags?: readonly string[];
  /** Lines of body agent control. */
  readonly agentControl?: string;
  /** Needs a loop device (ext4 image at `$R/disk.img`). */
  readonly loop?: boolean;
  readonly differs?: {
    readonly why: string;
    /** Per run: the parts of tend's result that differ from cf-agent's. */
    readonly tend: readonly Partial<RunView>[];
    /** Per run: what cf-agent 3.21 leaves in those parts; undefined when it varies (a crash). */
    readonly cfAgent?: readonly Partial<RunView>[];
  };
}

const BODIES = `
body mount nfs(server, source) {
  mount_server => "$(server)";
  mount_source => "$(source)";
  mount_type => "nfs";
  mount_options => { "ro", "soft" };
}
body mount nfs_fstab(server, source) {
  inherit_from => nfs("$(server)", "$(source)");
  edit_fstab => "true";
}
body mount untyped_fstab(server, source) {
  mount_server => "$(server)";
  mount_source => "$(source)";
  edit_fstab => "true";
}
body mount unmount { unmount => "true"; }
body mount unmount_fstab(server) { mount_server => "$(server)"; unmount => "true"; edit_fstab => "true"; }
body mount server_only(server) { mount_server => "$(server)"; }
body volume free(amount) { freespace => "$(amount)"; sensible_size => "0"; sensible_count => "0"; }
body volume sensible(size, count) { sensible_size => "$(size)"; sensible_count => "$(count)"; }
body volume foreign(check) { freespace => "99%"; check_foreign => "$(check)"; sensible_size => "0"; sensible_count => "0"; }
body volume scan { scan_arrivals => "true"; sensible_size => "0"; sensible_count => "0"; }
body action warn_only { action_policy => "warn"; }
body classes outcome(p) {
  promise_kept => { "$(p)_kept" };
  promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" };
}
`;

/** The scenario's policy. */
export function scenarioPolicy(scenario: StorageScenario): string {
  const reports = scenario.tags
    .flatMap((tag) => ["kept", "repaired", "failed"].map((o) => `  "${tag}_${o}" if => "${tag}_${o}";`))
    .join("\n");
  return `body common control { bundlesequence => { "main" }; }
${scenario.agentControl ? `body agent control { ${scenario.agentControl} }` : ""}
bundle agent main {
${scenario.main}
reports:
${reports}
}
${BODIES}`;
}

const A = "$R/arena";

/** The verbose lines of a storage section that has nothing left to do (passes 2 and 3). */
function idle(paths: readonly string[], extra: readonly string[] = []): string[] {
  return [
    ...paths.flatMap((p) => [`verbose: Using literal pathtype for 'R/arena/${p}'`, ...extra]),
    "verbose: Number of changes observed in '/etc/fstab' is 0",
  ];
}

/** A run's log: pass 1, then passes 2 and 3 alike. */
function passes(first: readonly string[], later: readonly string[]): string[] {
  return [...first, ...later, ...later];
}

const MOUNT_ALL = ["verbose: Mounting all filesystems", "verbose: Attempting to mount all filesystems."];
const UNMOUNT_NOTE = "verbose: An unmount promise indicates a mount-server information - probably an error";

/** The log of a run finding R/arena/a mounted as promised (pass 1). */
const keptLog = [
  "verbose: Using literal pathtype for 'R/arena/a'",
  "verbose: Verifying mounted file systems on 'R/arena/a'",
  "verbose: File system '/export' seems to be mounted correctly",
  "info: Filesystem 'R/arena/a' seems to be mounted as promised",
  "verbose: Number of changes observed in '/etc/fstab' is 0",
  "R: a_kept",
];

/** The first run of the unmount with edit_fstab scenario, when `deleted` lines go. */
function unmountFstabLog(deleted: number): string[] {
  return passes(
    [
      "verbose: Using literal pathtype for 'R/arena/a'",
      UNMOUNT_NOTE,
      "verbose: Verifying mounted file systems on 'R/arena/a'",
      ...Array.from({ length: deleted }, () => "info: Deleting file system mounted on 'srv'"),
      `verbose: Number of changes observed in '/etc/fstab' is ${deleted}`,
      ...MOUNT_ALL,
      "R: a_repaired",
    ],
    [...idle(["a"], [UNMOUNT_NOTE]), ...MOUNT_ALL],
  );
}

/** The arena's own line in the mount table. */
const ARENA = "tend-arena R/arena tmpfs rw,relatime,size=16384k,mode=755 0 0";

export const storageScenarios: readonly StorageScenario[] = [
  {
    name: "mount an absent file system",
    main: `storage:\n  "${A}/a" mount => nfs("srv", "/export"), classes => outcome("a");`,
    tags: ["a"],
  },
  {
    name: "a file system already mounted is kept",
    setup: `mkdir arena/a && mount -o ro srv:/export arena/a`,
    main: `storage:\n  "${A}/a" mount => nfs("srv", "/export"), classes => outcome("a");`,
    tags: ["a"],
  },
  {
    name: "mounted with other options: 3.21 compares only the source",
    setup: `mkdir arena/a && mount -o rw srv:/export arena/a`,
    main: `storage:\n  "${A}/a" mount => nfs("srv", "/export"), classes => outcome("a");`,
    tags: ["a"],
  },
  {
    name: "another file system on the mount point",
    setup: `mkdir arena/a && mount srv:/other arena/a`,
    main: `storage:\n  "${A}/a" mount => nfs("srv", "/export"), classes => outcome("a");`,
    tags: ["a"],
  },
  {
    name: "edit_fstab adds the entry and mounts all",
    main: `storage:\n  "${A}/a" mount => nfs_fstab("srv", "/export"), classes => outcome("a");`,
    tags: ["a"],
  },
  {
    name: "edit_fstab keeps an entry already there",
    fstab: `# sandbox fstab\nsrv:/export ${A}/a nfs ro 0 0\n`,
    main: `storage:\n  "${A}/a" mount => nfs_fstab("srv", "/export"), classes => outcome("a");`,
    tags: ["a"],
  },
  {
    name: "unmount a mounted file system",
    setup: `mkdir arena/a arena/b && mount srv:/export arena/a && mount srv:/other arena/b`,
    main: `storage:\n  "${A}/a" mount => unmount, classes => outcome("a");\n  "${A}/c" mount => unmount, classes => outcome("c");`,
    tags: ["a", "c"],
    differs: {
      why: "3.21 reads the stream of a silent umount after closing it: it logs the repair or, as often, an error instead",
      tend: [
        {
          log: passes(
            [
              "verbose: Using literal pathtype for 'R/arena/a'",
              "verbose: Verifying mounted file systems on 'R/arena/a'",
              "verbose: File system '/export' seems to be mounted correctly",
              "info: Unmounting 'R/arena/a' to keep promise",
              "verbose: Using literal pathtype for 'R/arena/c'",
              "verbose: Verifying mounted file systems on 'R/arena/c'",
              "verbose: Number of changes observed in '/etc/fstab' is 0",
              "R: a_repaired",
            ],
            idle(["a", "c"]),
          ),
        },
        {
          log: passes(
            [
              "verbose: Using literal pathtype for 'R/arena/a'",
              "verbose: Verifying mounted file systems on 'R/arena/a'",
              "verbose: Using literal pathtype for 'R/arena/c'",
              "verbose: Verifying mounted file systems on 'R/arena/c'",
              "verbose: Number of changes observed in '/etc/fstab' is 0",
            ],
            idle(["a", "c"]),
          ),
        },
      ],
    },
  },
  {
    name: "unmount a busy file system",
    setup: `mkdir arena/a && mount srv:/export arena/a && (cd arena/a && exec sleep 600) > /dev/null 2>&1 &
echo $! > sleeper`,
    teardown: "kill $(cat sleeper)",
    main: `storage:\n  "${A}/a" mount => unmount, classes => outcome("a");`,
    tags: ["a"],
  },
  {
    name: "unmount with edit_fstab removes the entry, not a comment",
    fstab: `# sandbox fstab\n# ${A}/a was the old share\nsrv:/export ${A}/a nfs ro 0 0\nsrv:/other ${A}/a/sub nfs ro 0 0\n`,
    main: `storage:\n  "${A}/a" mount => unmount_fstab("srv"), classes => outcome("a");`,
    tags: ["a"],
    differs: {
      why: "3.21 deletes any line holding the mount point between blanks, comments too",
      tend: [
        {
          log: unmountFstabLog(1),
          fstab: "# sandbox fstab\n# R/arena/a was the old share\nsrv:/other R/arena/a/sub nfs ro 0 0\n",
        },
        { fstab: "# sandbox fstab\n# R/arena/a was the old share\nsrv:/other R/arena/a/sub nfs ro 0 0\n" },
      ],
      cfAgent: [
        {
          log: unmountFstabLog(2),
          fstab: "# sandbox fstab\nsrv:/other R/arena/a/sub nfs ro 0 0\n",
        },
        { fstab: "# sandbox fstab\nsrv:/other R/arena/a/sub nfs ro 0 0\n" },
      ],
    },
  },
  {
    name: "edit_fstab without mount_type",
    main: `storage:\n  "${A}/a" mount => untyped_fstab("srv", "/export"), classes => outcome("a");`,
    tags: ["a"],
    differs: {
      why: "3.21 writes the missing type as '(null)', an entry mount -a cannot mount; tend writes 'auto'",
      tend: [
        {
          fstab: "# sandbox fstab\nsrv:/export \t R/arena/a \t auto \t defaults\n",
          mounts: [ARENA, "srv:/export R/arena/a tmpfs rw,relatime,size=1024k 0 0"],
          tree: ["./a d 1777"],
        },
        {
          log: passes(keptLog, idle(["a"])),
          fstab: "# sandbox fstab\nsrv:/export \t R/arena/a \t auto \t defaults\n",
          mounts: [ARENA, "srv:/export R/arena/a tmpfs rw,relatime,size=1024k 0 0"],
          tree: ["./a d 1777"],
        },
      ],
      cfAgent: [
        {
          fstab: "# sandbox fstab\nsrv:/export \t R/arena/a \t (null) \t defaults\n",
          mounts: [ARENA],
          tree: ["./a d 700"],
        },
        {
          log: passes(
            [
              "verbose: Using literal pathtype for 'R/arena/a'",
              "verbose: Verifying mounted file systems on 'R/arena/a'",
              "verbose: File system 'R/arena/a' seems not to be mounted correctly",
              "verbose: Verifying 'R/arena/a' in '/etc/fstab'",
              "verbose: Number of changes observed in '/etc/fstab' is 0",
              ...MOUNT_ALL,
            ],
            [...idle(["a"]), ...MOUNT_ALL],
          ),
          fstab: "# sandbox fstab\nsrv:/export \t R/arena/a \t (null) \t defaults\n",
          mounts: [ARENA],
          tree: ["./a d 700"],
        },
      ],
    },
  },
  {
    name: "insufficient mount specification",
    main: `storage:\n  "${A}/a" mount => server_only("srv"), classes => outcome("a");`,
    tags: ["a"],
  },
  {
    name: "a percentage out of range at run time",
    setup: "mkdir arena/v && echo x > arena/v/f",
    main: `vars:\n  "pct" string => "101%";
storage:\n  "${A}/v" volume => free("$(pct)"), classes => outcome("pct");`,
    tags: ["pct"],
  },
  {
    name: "an expanded value out of the syntax stops the run",
    setup: "mkdir arena/v && echo x > arena/v/f",
    main: `vars:\n  "odd" string => "5q";
storage:\n  "${A}/v" volume => free("$(odd)"), classes => outcome("odd");`,
    tags: ["odd"],
  },
  {
    name: "free space in bytes, enough and too little",
    setup: `mkdir arena/v && mount -t tmpfs -o size=2m vol arena/v && head -c 1100000 /dev/zero > arena/v/big`,
    main: `storage:
  "${A}/v" volume => free("512k"), classes => outcome("ok");
  "${A}/v" volume => free("1M"), classes => outcome("low");
  "${A}/v" volume => free("100G"), classes => outcome("huge");`,
    tags: ["ok", "low", "huge"],
  },
  {
    name: "free space as a percentage, enough and too little",
    setup: `mkdir arena/v && mount -t tmpfs -o size=4m vol arena/v && head -c 1000000 /dev/zero > arena/v/big`,
    main: `storage:
  "${A}/v" volume => free("50%"), classes => outcome("ok");
  "${A}/v" volume => free("90%"), classes => outcome("low");
  "${A}/v" volume => free("0%"), classes => outcome("zero");`,
    tags: ["ok", "low", "zero"],
  },
  {
    name: "free space on an ext4 loop device",
    loop: true,
    setup: `truncate -s 8M disk.img && mkfs.ext4 -q -F disk.img && mkdir arena/disk && mount -o loop disk.img arena/disk && head -c 2000000 /dev/zero > arena/disk/data`,
    main: `storage:
  "${A}/disk" volume => free("10%"), classes => outcome("ok");
  "${A}/disk" volume => free("95%"), classes => outcome("pct");
  "${A}/disk" volume => free("64M"), classes => outcome("abs");
  "${A}/disk" volume => sensible("1000", "2"), classes => outcome("sens");`,
    tags: ["ok", "pct", "abs", "sens"],
  },
  {
    name: "sensible size and count, failing and passing",
    setup: `mkdir -p arena/empty arena/one arena/full/d && head -c 5000 /dev/zero > arena/one/f && head -c 5000 /dev/zero > arena/full/f && echo x > arena/full/g && echo y > arena/file`,
    main: `storage:
  "${A}/empty" volume => sensible("1000", "2"), classes => outcome("empty");
  "${A}/one" volume => sensible("1000", "2"), classes => outcome("one");
  "${A}/full" volume => sensible("1000", "2"), classes => outcome("full");
  "${A}/full" volume => sensible("999999", "1"), classes => outcome("big");
  "${A}/file" volume => sensible("1000", "2"), classes => outcome("file");
  "${A}/missing" volume => sensible("1000", "2"), classes => outcome("missing");
  "${A}/full" volume => scan, classes => outcome("scan");`,
    tags: ["empty", "one", "full", "big", "file", "missing", "scan"],
  },
  {
    name: "check_foreign: a network volume is passed over unless asked",
    setup: `mkdir arena/n && mount -t tmpfs -o size=1m nfs arena/n && head -c 900000 /dev/zero > arena/n/f`,
    main: `storage:
  "${A}/n" volume => foreign("false"), classes => outcome("skip");
  "${A}/n" volume => foreign("true"), classes => outcome("check");`,
    tags: ["skip", "check"],
  },
  {
    name: "dry run changes nothing",
    flags: ["-n"],
    setup: `mkdir arena/b && mount srv:/export arena/b`,
    main: `storage:
  "${A}/a" mount => nfs("srv", "/export"), classes => outcome("a");
  "${A}/b" mount => unmount, classes => outcome("b");
  "${A}/c" mount => nfs_fstab("srv", "/c"), classes => outcome("c");`,
    tags: ["a", "b", "c"],
    differs: {
      why: "3.21 creates the mount point directory even in a dry run",
      tend: [{ tree: ["./b d 1777"] }, { tree: ["./b d 1777"] }],
      cfAgent: [
        { tree: ["./a d 700", "./b d 1777", "./c d 700"] },
        { tree: ["./a d 700", "./b d 1777", "./c d 700"] },
      ],
    },
  },
  {
    name: "regex promiser over volumes",
    setup: `mkdir -p arena/vol1 arena/vol2 arena/other && echo x > arena/vol1/f`,
    main: `storage:\n  "${A}/vol[0-9]" volume => sensible("1", "1"), classes => outcome("v");`,
    tags: ["v"],
  },
  {
    name: "action_policy warn is not looked at by storage promises",
    main: `storage:\n  "${A}/a" mount => nfs("srv", "/export"), action => warn_only, classes => outcome("a");`,
    tags: ["a"],
  },
  {
    name: "mountfilesystems mounts what fstab lists after the storage section",
    agentControl: 'mountfilesystems => "true";',
    fstab: `# sandbox fstab\nsrv:/m ${A}/m nfs ro 0 0\n`,
    setup: `mkdir arena/m arena/v && echo x > arena/v/f`,
    main: `storage:\n  "${A}/v" volume => sensible("1", "1"), classes => outcome("v");`,
    tags: ["v"],
  },
  {
    name: "mount and volume in one promise",
    main: `storage:\n  "${A}/a" mount => nfs("srv", "/export"), volume => free("90%"), classes => outcome("a");`,
    tags: ["a"],
  },
  {
    name: "a cifs mount listed before a local one",
    setup: `mkdir arena/c arena/d arena/a && mount -t tmpfs cifs arena/c && mount --bind helpers arena/d && mount -o ro srv:/export arena/a`,
    main: `storage:\n  "${A}/a" mount => nfs("srv", "/export"), classes => outcome("a");`,
    tags: ["a"],
    differs: {
      why: "3.21 keeps the cifs tag for every later mount line and reads past the local device's name: it may crash (stack smashing)",
      tend: [
        { exit: 0, log: passes(keptLog, idle(["a"])) },
        { exit: 0, log: passes(keptLog, idle(["a"])) },
      ],
    },
  },
];
