/**
 * The mounts and volumes provider: the mount table, the file system table,
 * mount and umount, free space and directory counts, for every front end
 * (CFEngine `storage` promises first). It imports only node:* and
 * src/system; it logs nothing and hands back data.
 */
export * from "./actions.js";
export * from "./commands.js";
export * from "./fstab.js";
export * from "./fstab-records.js";
export * from "./table.js";
export * from "./volume.js";
