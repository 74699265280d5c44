/** Line-oriented record files (known_hosts, authorized_keys, aliases, fstab), read and rewritten as Puppet's parsed-file providers do. */
export {
  ensureRecord,
  parsedFileHeader,
  parseRecords,
  propertyChange,
  type RecordFormat,
  type RecordLine,
  type RecordOptions,
  type RecordRequest,
  type RecordResult,
  renderRecords,
} from "./records.js";
