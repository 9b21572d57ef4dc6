import ofacDemo from "./ofac-demo.xml.txt" with { type: "text" };
import pepDemo from "./peps-demo.ftm.jsonl" with { type: "text" };
import unDemo from "./un-demo.xml.txt" with { type: "text" };

// The XML files carry a .txt suffix because bun-types types `*.xml` imports as parsed documents.

/**
 * The FICTIONAL demo list, embedded in the binary: an OFAC-format XML, a UN-format XML and a
 * FollowTheMoney PEP file. Every file says FICTIONAL DEMO DATA in its first lines.
 */
const DEMO_FILES: readonly (readonly [string, string])[] = [
  ["ofac-demo.xml", ofacDemo],
  ["un-demo.xml", unDemo],
  ["peps-demo.ftm.jsonl", pepDemo],
];

export const DEMO_FILE_NAMES: readonly string[] = DEMO_FILES.map(([name]) => name);

/** The demo files as raw bytes, ready for parseListFiles. */
export function demoListFiles(): { name: string; bytes: Uint8Array }[] {
  const encoder = new TextEncoder();
  return DEMO_FILES.map(([name, text]) => ({ name, bytes: encoder.encode(text) }));
}
