/**
 * CSV as 3.21 reads it (readcsv, readdata, classfiltercsv): records end at
 * CRLF outside quotes (a bare LF does not end one), and each record goes
 * through a small state machine that keeps blanks inside unquoted fields,
 * drops those around quoted ones, and rejects stray quotes.
 */

/** Records as 3.21's `GetCsvLineNext` cuts them: each keeps its CRLF. */
export function csvRecords(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === "\n" && text[i - 1] === "\r") {
      out.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

type State =
  | "start"
  | "leading-blank"
  | "plain"
  | "separator"
  | "open-quote"
  | "after-quote"
  | "quoted"
  | "blank-after-quote"
  | "error";

const isBlank = (ch: string) => ch === " " || ch === "\t" || ch === "\n" || ch === "\r";

/**
 * The fields of one record, or undefined when it is malformed (a quote in
 * an unquoted field, text after a closing quote, an unclosed quote). As in
 * 3.21 a malformed character only counts once another character follows it.
 */
export function parseCsvRecord(record: string): string[] | undefined {
  const fields: string[] = [];
  let field = "";
  let state: State = "start";
  const endField = () => {
    fields.push(field);
    field = "";
  };
  const setField = (text: string) => {
    field = text;
  };
  for (const ch of record) {
    if (state === "error") return undefined;
    state = step(state, ch, field, setField, endField);
  }
  if (state === "open-quote" || state === "quoted") return undefined;
  if ((state === "plain" || state === "leading-blank") && field.endsWith("\r\n")) field = field.slice(0, -2);
  if (state === "error") field = "";
  fields.push(field);
  return fields;
}

/** One character through the state machine: the next state; the field changes through the callbacks. */
function step(
  state: State,
  ch: string,
  field: string,
  setField: (text: string) => void,
  endField: () => void,
): State {
  const quote = ch === '"';
  const sep = ch === ",";
  switch (state) {
    case "start":
    case "leading-blank":
    case "separator":
      if (sep) {
        if (state !== "leading-blank") setField("");
        endField();
        return "separator";
      }
      if (quote) {
        setField("");
        return "open-quote";
      }
      setField(state === "leading-blank" ? field + ch : ch);
      return isBlank(ch) ? "leading-blank" : "plain";
    case "plain":
      if (sep) {
        endField();
        return "separator";
      }
      if (quote) {
        setField("");
        return "error";
      }
      setField(field + ch);
      return "plain";
    case "open-quote":
      if (quote) {
        setField("");
        return "after-quote";
      }
      setField(ch);
      return "quoted";
    case "quoted":
      if (quote) return "after-quote";
      setField(field + ch);
      return "quoted";
    case "after-quote":
      if (sep) {
        endField();
        return "separator";
      }
      if (isBlank(ch)) return "blank-after-quote";
      if (quote) {
        setField(`${field}"`);
        return "quoted";
      }
      return "error";
    case "blank-after-quote":
      if (sep) {
        endField();
        return "separator";
      }
      return isBlank(ch) ? "blank-after-quote" : "error";
    case "error":
      return "error";
  }
}

/** readcsv(): every well-formed record as an array of fields. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  for (const record of csvRecords(text)) {
    const fields = parseCsvRecord(record);
    if (fields) rows.push(fields);
  }
  return rows;
}
