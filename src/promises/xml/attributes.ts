/**
 * set_attribute (promiser: the name, `attribute_value`: the value) and
 * delete_attribute (promiser: the name) on the selected element.
 */
import { attributeWithValue } from "./compare.js";
import type { XmlEdit } from "./edit.js";
import type { XmlDom } from "./library.js";
import { hasProp, removeProp, setProp } from "./tree.js";

function where(edit: XmlEdit): string {
  return `at XPath '${edit.selectXpath}' in XML document '${edit.file}'`;
}

export function setAttributeInNode(edit: XmlEdit, node: XmlDom.Element): boolean {
  const name = edit.promise.promiser;
  const value = edit.attributeValue;
  if (value === undefined) {
    edit.fail(
      `Failed to load the value of the attribute '${name}' (to be set at XPath '${edit.selectXpath}' in XML document '${edit.file}')into a buffer`,
    );
    return false;
  }
  const what = `with name '${name}' and value '${value}'`;
  if (attributeWithValue(name, value, node)) {
    edit.unchanged(`Attribute ${what} already exists ${where(edit)}`);
    return false;
  }
  const change = `attribute with name '${name}' to value '${value}' ${where(edit)}`;
  if (!edit.makingChanges(`set ${change}`)) return false;
  setProp(node, name, value);
  if (!attributeWithValue(name, value, node)) {
    edit.unchanged(
      `Attribute '${name}' with value '${value}' not present at '${edit.selectXpath}' in '${edit.file}'`,
    );
    edit.fail(`Failed to set the ${change}`);
    return false;
  }
  edit.changed(`Set ${change}`);
  edit.update("repaired");
  return true;
}

export function deleteAttributeInNode(edit: XmlEdit, node: XmlDom.Element): boolean {
  const name = edit.promise.promiser;
  const inDocument = `at XPath '${edit.selectXpath}' in the XML document '${edit.file}'`;
  const attr = hasProp(node, name);
  if (!attr) {
    edit.unchanged(`Attribute '${name}' (to be deleted ${inDocument}) does not exist`);
    return false;
  }
  if (!edit.makingChanges(`delete the attribute '${name}' ${inDocument}`)) return false;
  removeProp(node, attr);
  if (hasProp(node, name)) {
    edit.unchanged(`Attribute '${name}' still present at '${edit.selectXpath}' in '${edit.file}'`);
    edit.fail(`Failed to delete the attribute '${name}' ${inDocument}.`);
    return false;
  }
  edit.changed(`Deleted attribute '${name}' ${inDocument}`);
  edit.update("repaired");
  return true;
}
