/** Mail aliases files, for the parsed-file records provider. */
export { type MailAlias, mailAliasesFormat, splitRecipients } from "./aliases-file.js";
