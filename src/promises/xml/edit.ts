/**
 * One edit_xml promise acting on the document of the file being edited:
 * its attributes, its result so far, and the ways it reports — changes at
 * `info` (held until the file is saved, as cf-agent holds them), failures
 * at `error` straight away, what is already so at `verbose`. Like
 * cf-agent's Record* calls, each message also defines the promise's
 * outcome classes for what it reports.
 */
import { type Outcome, combineOutcomes } from "../outcome.js";
import { applyOutcomeClasses } from "../outcome-classes.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { closeEditPromise, makingChanges } from "../edit/common.js";
import type { XmlDom } from "./library.js";
import { xmlLibrary } from "./library.js";
import { asText } from "../values.js";
import type { XmlEditSession } from "./session-state.js";
import { isElement } from "./tree.js";
import { isConvergent } from "./xpath-syntax.js";

export class XmlEdit {
  result: Outcome = "kept";
  readonly buildXpath: string | undefined;
  readonly selectXpath: string | undefined;
  readonly attributeValue: string | undefined;

  constructor(
    readonly promise: ActivePromise,
    readonly env: PromiseEnvironment,
    readonly session: XmlEditSession,
  ) {
    this.buildXpath = asText(promise.value("build_xpath"));
    this.selectXpath = asText(promise.value("select_xpath"));
    this.attributeValue = asText(promise.value("attribute_value"));
  }

  get file(): string {
    return this.session.filename;
  }

  get doc(): XmlDom.Document | undefined {
    return this.session.document?.dom;
  }

  update(outcome: Outcome): void {
    this.result = combineOutcomes(this.result, outcome);
  }

  /** A failure: logged now, and the result fails. */
  fail(message: string, outcome: Outcome = "failed"): void {
    this.env.log.error(message);
    applyOutcomeClasses(this.promise, this.env, "failed");
    this.update(outcome);
  }

  /** A change made (the caller updates the result, as cf-agent's code does). */
  changed(message: string): void {
    this.env.log.info(message);
    applyOutcomeClasses(this.promise, this.env, "repaired");
  }

  unchanged(message: string): void {
    this.env.log.verbose(message);
    applyOutcomeClasses(this.promise, this.env, "kept");
  }

  /**
   * Whether the change `what` describes may be made; in a dry run or with
   * `action_policy => "warn"` it is reported instead and the result is a warning.
   */
  makingChanges(what: string): boolean {
    return makingChanges(this.promise, this.env, what, (o) => {
      this.result = o;
    });
  }

  /**
   * Acts as cf-agent's per-run lock on `operation` (`inserttree-...`): true
   * the first time this promise asks for it in this run, false after.
   */
  acquire(operation: string): boolean {
    return this.session.locks.acquire(this.promise, operation);
  }

  /**
   * The one element `xpath` selects (`XmlSelectNode`). No match, several
   * matches or a match that is not an element select nothing; all but the
   * first are also failures.
   */
  select(xpath: string): XmlDom.Element | null {
    if (!isConvergent(xpath)) {
      this.fail(`select_xpath expression '${xpath}', is NOT convergent`);
      return null;
    }
    const doc = this.doc;
    if (!doc) return null;
    let nodes: XmlDom.Node[];
    try {
      nodes = evaluate(doc, xpath);
    } catch {
      this.fail(`Unable to evaluate XPath expression '${xpath}'`);
      return null;
    }
    if (nodes.length === 0) return null;
    if (nodes.length > 1) {
      this.fail(
        `Current select_xpath expression '${xpath}' returns ${nodes.length} edit nodes in XML document '${this.file}', unique edit node required`,
      );
      return null;
    }
    const node = nodes[0];
    if (!isElement(node)) {
      this.fail(
        `The promised XPath pattern '${xpath}' was NOT found when selecting an edit node in XML document '${this.file}'`,
      );
      return null;
    }
    return node;
  }

  /** The closing line cf-agent logs for the promise, by its result. */
  close(type: string): Outcome {
    return closeEditPromise(type, this.promise, this.env, this.result);
  }
}

/**
 * The nodes an XPath selects in `doc`. As with libxml2's context (which
 * has no context node), relative paths select nothing: they are evaluated
 * from a detached element, and that element itself is never a result.
 */
function evaluate(doc: XmlDom.Document, xpath: string): XmlDom.Node[] {
  const context = doc.createElement("tend-no-context");
  const result = xmlLibrary().xpath.select(xpath, context);
  if (!Array.isArray(result)) return [];
  return (result as XmlDom.Node[]).filter((node) => node !== context);
}
