/**
 * A system error's text as the C library words it (`No such file or
 * directory`), for messages that name the failed call: what cf-agent
 * prints after `(open: ...)` and what Puppet's `Errno` messages carry.
 */

/** The text of a node:fs error (its `code`), else the error's own message. */
export function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  return (code && SYSTEM_ERRORS[code]) ?? (error instanceof Error ? error.message : String(error));
}

const SYSTEM_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: "No such file or directory",
  EEXIST: "File exists",
  EACCES: "Permission denied",
  EPERM: "Operation not permitted",
  ENOTDIR: "Not a directory",
  EISDIR: "Is a directory",
  ENOTEMPTY: "Directory not empty",
  EROFS: "Read-only file system",
  ENOSPC: "No space left on device",
  ELOOP: "Too many levels of symbolic links",
  EXDEV: "Invalid cross-device link",
  EINVAL: "Invalid argument",
  EBUSY: "Device or resource busy",
  ENOLINK: "Link has been severed",
};
