import { SaxesParser } from "saxes";
import { ListParseError } from "../../errors";

/** A small element tree built only for the records we capture, never for the whole file. */
export interface XmlNode {
  /** Local name, namespace prefix removed. */
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  /** Raw character data directly inside this element (not trimmed). */
  text: string;
}

export interface XmlReadOptions {
  file: string;
  /** True to collect the element (with its subtree) and hand it to onNode. `path` holds the ancestors' local names. */
  capture: (path: readonly string[], name: string) => boolean;
  onNode: (node: XmlNode, path: readonly string[]) => void;
  onRoot?: (name: string, attrs: Record<string, string>) => void;
}

/** Mixed content keeps its order through "#text" children, added once an element has element children. */
function textNode(text: string): XmlNode {
  return { name: "#text", attrs: {}, children: [], text };
}

function localName(name: string): string {
  const colon = name.indexOf(":");
  return colon < 0 ? name : name.slice(colon + 1);
}

function localAttrs(attributes: Record<string, string>): Record<string, string> {
  let prefixed = false;
  for (const key in attributes) if (key.includes(":")) prefixed = true;
  if (!prefixed) return attributes;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (key.startsWith("xmlns:")) out[key] = value;
    else out[localName(key)] = value;
  }
  return out;
}

class XmlSyntaxError extends Error {}

/**
 * Streams XML through saxes without position tracking (a third faster). When the XML is not
 * well-formed (including a file cut short), a second pass with positions finds the line and
 * column for the ListParseError. `chunks` must start a fresh iteration on every call.
 */
export function readXml(chunks: () => Iterable<string>, opts: XmlReadOptions): void {
  try {
    run(chunks(), opts, false);
  } catch (err) {
    if (!(err instanceof XmlSyntaxError)) throw err;
    try {
      run(chunks(), { file: opts.file, capture: () => false, onNode: () => undefined }, true);
    } catch (located) {
      if (located instanceof ListParseError) throw located;
    }
    throw new ListParseError({ file: opts.file, location: "XML", reason: `malformed XML: ${err.message}` });
  }
}

function run(chunks: Iterable<string>, opts: XmlReadOptions, position: boolean): void {
  const parser = new SaxesParser({ position });
  const path: string[] = [];
  const open: XmlNode[] = [];
  let sawRoot = false;

  parser.on("error", (err) => {
    const reason = err.message.replace(/^[^:]*:\d+:\d+: /, "");
    if (!position) throw new XmlSyntaxError(reason);
    const location = `line ${parser.line}, column ${parser.column}, element /${path.join("/")}`;
    throw new ListParseError({ file: opts.file, location, reason: `malformed XML: ${reason}` });
  });
  parser.on("opentag", (tag) => {
    const name = localName(tag.name);
    const attrs = tag.attributes as Record<string, string>;
    if (path.length === 0) {
      sawRoot = true;
      opts.onRoot?.(name, localAttrs(attrs));
    }
    const parent = open[open.length - 1];
    if (parent || opts.capture(path, name)) {
      const node: XmlNode = { name, attrs: localAttrs(attrs), children: [], text: "" };
      if (parent) {
        if (parent.children.length === 0 && parent.text) parent.children.push(textNode(parent.text));
        parent.children.push(node);
      }
      open.push(node);
    }
    path.push(name);
  });
  const onText = (text: string) => {
    const top = open[open.length - 1];
    if (!top) return;
    top.text += text;
    if (top.children.length > 0) top.children.push(textNode(text));
  };
  parser.on("text", onText);
  parser.on("cdata", onText);
  parser.on("closetag", () => {
    path.pop();
    const node = open.pop();
    if (node && open.length === 0) opts.onNode(node, path);
  });

  for (const chunk of chunks) parser.write(chunk);
  parser.close();
  if (!sawRoot) throw new ListParseError({ file: opts.file, location: "line 1", reason: "no XML root element" });
}

export function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return node?.children.find((c) => c.name === name);
}

export function childrenNamed(node: XmlNode | undefined, name: string): XmlNode[] {
  return node ? node.children.filter((c) => c.name === name) : [];
}

/** Trimmed direct text of the element; "" when absent. */
export function textOf(node: XmlNode | undefined): string {
  return node ? node.text.trim() : "";
}

export function childText(node: XmlNode | undefined, name: string): string {
  return textOf(child(node, name));
}

/** All text below the element, in document order. */
export function deepText(node: XmlNode): string {
  if (node.children.length === 0) return node.text;
  let out = "";
  for (const c of node.children) out += deepText(c);
  return out;
}
