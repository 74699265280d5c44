/**
 * The 100 observable slots of cf-monitord 3.21 (`state/ts_key`): the fixed
 * names of OBSERVABLES in slots 0-71, then the slots the Linux probes
 * register in the order 3.21 registers them (I/O 72-75, memory 76-80), then
 * user `weekly` measurements from 81 on. Unused slots are named "spare",
 * as 3.21 names them, and are published like the others.
 */
export const OBSERVABLE_COUNT = 100;

const FIXED = [
  "users",
  "rootprocs",
  "otherprocs",
  "diskfree",
  "loadavg",
  "netbiosns_in",
  "netbiosns_out",
  "netbiosdgm_in",
  "netbiosdgm_out",
  "netbiosssn_in",
  "netbiosssn_out",
  "imap_in",
  "imap_out",
  "cfengine_in",
  "cfengine_out",
  "nfsd_in",
  "nfsd_out",
  "smtp_in",
  "smtp_out",
  "www_in",
  "www_out",
  "ftp_in",
  "ftp_out",
  "ssh_in",
  "ssh_out",
  "wwws_in",
  "wwws_out",
  "icmp_in",
  "icmp_out",
  "udp_in",
  "udp_out",
  "dns_in",
  "dns_out",
  "tcpsyn_in",
  "tcpsyn_out",
  "tcpack_in",
  "tcpack_out",
  "tcpfin_in",
  "tcpfin_out",
  "tcpmisc_in",
  "tcpmisc_out",
  "webaccess",
  "weberrors",
  "syslog",
  "messages",
  "temp0",
  "temp1",
  "temp2",
  "temp3",
  "cpu",
  "cpu0",
  "cpu1",
  "cpu2",
  "cpu3",
  "microsoft_ds_in",
  "microsoft_ds_out",
  "www_alt_in",
  "www_alt_out",
  "imaps_in",
  "imaps_out",
  "ldap_in",
  "ldap_out",
  "ldaps_in",
  "ldaps_out",
  "mongo_in",
  "mongo_out",
  "mysql_in",
  "mysql_out",
  "postgres_in",
  "postgres_out",
  "ipp_in",
  "ipp_out",
] as const;

/** Slots the Linux probes register after the fixed ones, in 3.21's order. */
export const REGISTERED = [
  "io_reads",
  "io_writes",
  "io_readdata",
  "io_writtendata",
  "mem_total",
  "mem_free",
  "mem_cached",
  "mem_swap",
  "mem_freeswap",
] as const;

export const FIRST_SPARE = FIXED.length;

/** Slot names: fixed, registered, then "spare" (or a weekly measurement's handle). */
export function slotNames(weekly: readonly string[] = []): string[] {
  const names: string[] = [...FIXED, ...REGISTERED];
  for (const handle of weekly) {
    if (names.length >= OBSERVABLE_COUNT) break;
    if (!names.includes(handle)) names.push(handle);
  }
  while (names.length < OBSERVABLE_COUNT) names.push("spare");
  return names;
}

/** The index of a named slot. */
export function slotOf(name: string): number {
  const fixed = (FIXED as readonly string[]).indexOf(name);
  if (fixed >= 0) return fixed;
  const registered = (REGISTERED as readonly string[]).indexOf(name);
  if (registered >= 0) return FIRST_SPARE + registered;
  throw new Error(`no observable slot named ${name}`);
}

/** The services 3.21 counts connections of: port, name (for entropy classes), slots. */
export const SERVICES: readonly { port: number; name: string; observable: string }[] = [
  { port: 137, name: "netbiosns", observable: "netbiosns" },
  { port: 138, name: "netbiosdgm", observable: "netbiosdgm" },
  { port: 139, name: "netbiosssn", observable: "netbiosssn" },
  { port: 445, name: "microsoft_ds", observable: "microsoft_ds" },
  { port: 5308, name: "cfengine", observable: "cfengine" },
  { port: 2049, name: "nfsd", observable: "nfsd" },
  { port: 25, name: "smtp", observable: "smtp" },
  { port: 80, name: "www", observable: "www" },
  { port: 8080, name: "www_alt", observable: "www_alt" },
  { port: 21, name: "ftp", observable: "ftp" },
  { port: 22, name: "ssh", observable: "ssh" },
  // 3.21 counts wwws on port 433 (its table says 433 for "443"); kept so the counts agree.
  { port: 433, name: "wwws", observable: "wwws" },
  { port: 143, name: "imap", observable: "imap" },
  { port: 993, name: "imaps", observable: "imaps" },
  { port: 389, name: "ldap", observable: "ldap" },
  { port: 636, name: "ldaps", observable: "ldaps" },
  { port: 27017, name: "mongo", observable: "mongo" },
  { port: 3306, name: "mysql", observable: "mysql" },
  { port: 5432, name: "postgresql", observable: "postgres" },
  { port: 631, name: "ipp", observable: "ipp" },
];
