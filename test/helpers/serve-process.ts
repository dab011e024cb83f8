/**
 * A `metahooks serve` child process, for the tests that start the real command.
 */
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

/** The "metahooks listening" log line's fields that the tests read. */
export interface ListeningEntry {
  hookUrl: string;
  adminUrl: string;
  [field: string]: unknown;
}

/**
 * Waits for the "metahooks listening" log line on the child's stdout (JSON lines; other lines
 * are skipped) and returns it.
 * @throws Error when the child exits first, or after `timeoutMs` (with what it wrote on stderr)
 */
export function waitForListening(child: ChildProcess, timeoutMs: number): Promise<ListeningEntry> {
  return new Promise((resolveEntry, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stderr}`));
    });
    createInterface({ input: child.stdout! }).on("line", (line) => {
      let entry: any;
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      if (entry.msg !== "metahooks listening") return;
      clearTimeout(timer);
      resolveEntry(entry);
    });
  });
}
