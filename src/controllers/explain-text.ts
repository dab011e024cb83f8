/**
 * Small text helpers shared by the kinds' `explain` sections and the summary around them.
 * Kept out of src/explain so the hook server never loads the explain command's modules.
 *
 * @packageDocumentation
 */
import type { Condition } from "../kube/conditions.ts";

/** The conditions of a status as the hook wrote them (anything malformed reads as no conditions). */
export function conditionsOf(status: Record<string, unknown>): Array<Partial<Condition>> {
  return Array.isArray(status.conditions) ? (status.conditions as Array<Partial<Condition>>) : [];
}

/** Messages (e.g. git's stderr) may span lines; the summary keeps one fact per line. */
export function oneLine(text: unknown): string {
  return String(text).replace(/\s*[\r\n]+\s*/g, " | ");
}
