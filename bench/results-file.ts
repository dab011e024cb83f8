/**
 * bench/RESULTS.md holds the sections of several bench scripts plus hand-written notes: each script
 * owns the text between its own begin/end markers and never touches the rest.
 */
import { readFileSync } from "node:fs";

const TITLE = "# Benchmark results\n";

/**
 * The new text of the results file with one script's section replaced.
 *
 * @param path - the results file (missing on the first run)
 * @param markers - the script's begin and end comment lines
 * @param section - the section's body (Markdown, ending in a newline)
 * @param placement - where a section that is not in the file yet goes: `first` right under the
 *   title, `last` at the end
 */
export function withSection(path: string, markers: { begin: string; end: string }, section: string, placement: "first" | "last"): string {
  let current = "";
  try {
    current = readFileSync(path, "utf8");
  } catch {
    // first run
  }
  const { begin, end } = markers;
  const block = `${begin}\n${section}${end}\n`;
  const start = current.indexOf(begin);
  const stop = current.indexOf(end);
  if (start >= 0 && stop > start) return current.slice(0, start) + block + current.slice(stop + end.length + 1);
  if (placement === "last") return `${(current || TITLE).replace(/\n*$/, "\n")}\n${block}`;
  const rest = current.startsWith(TITLE) ? current.slice(TITLE.length).replace(/^\n+/, "") : current;
  return `${TITLE}\n${block}${rest ? `\n${rest}` : ""}`;
}
