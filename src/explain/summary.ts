/**
 * The human summary of `metahooks explain`: what the hook would do now and why, computed from
 * the request we built and the pure hook's answer. No I/O, no clock (pure over its arguments).
 *
 * @packageDocumentation
 */
import type { ChildChanges, ExplainInput, Kind } from "../controllers/types.ts";
import { formatDecisions } from "../metacontroller/run-hook.ts";
import type { KubeObject, ObjectMap } from "../metacontroller/contract.ts";
import { compareStrings } from "../metacontroller/contract.ts";
import { conditionsOf, oneLine } from "../controllers/explain-text.ts";
import type { Condition } from "../kube/conditions.ts";

/** What the summary is made of: the kind, and what its explain section reads. */
export interface SummaryInput extends Omit<ExplainInput, "changes"> {
  def: Kind;
}

export type { ChildChanges };

const childKey = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;

/**
 * Compares observed with desired children: a desired child not observed is created; an observed
 * child left out is deleted by Metacontroller (background propagation). Keys are `Kind/name`, sorted.
 */
export function childChanges(children: ObjectMap, desired: KubeObject[]): ChildChanges {
  const observed = new Set(Object.values(children).flatMap((group) => Object.values(group ?? {}).map(childKey)));
  const wanted = new Set(desired.map(childKey));
  const sorted = (s: Iterable<string>) => [...s].sort(compareStrings);
  return {
    create: sorted([...wanted].filter((k) => !observed.has(k))),
    delete: sorted([...observed].filter((k) => !wanted.has(k))),
    keep: sorted([...wanted].filter((k) => observed.has(k))),
  };
}

function formatCondition(c: Partial<Condition>): string {
  return `${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ""}${c.message ? `: ${oneLine(c.message)}` : ""}`;
}

/**
 * The summary text (ends with a newline).
 *
 * Sections: the parent and hook; the kind's own lines (its `explain`, if it declares one);
 * conditions; the children that would be created, deleted or kept; the hook's decisions; the
 * resync time.
 */
export function formatExplanation(input: SummaryInput): string {
  const { def, parent, response } = input;
  const changes = childChanges(input.children, response.children);
  const ns = parent.metadata.namespace ? `${parent.metadata.namespace}/` : "";
  const lines = [
    `${def.kind} ${ns}${parent.metadata.name} (generation ${parent.metadata.generation ?? "?"}) at ${input.now.toISOString()}`,
    `Hook:          ${input.finalizing ? "finalize (the parent is being deleted)" : "sync"}`,
  ];
  const explain = def.declaration.explain;
  if (explain) lines.push(...explain({ ...input, changes }));
  const conditions = conditionsOf(response.status);
  if (conditions.length) {
    lines.push("Conditions:");
    for (const c of conditions) lines.push(`  ${formatCondition(c)}`);
  }
  lines.push("Children:");
  const list = (label: string, keys: string[]) => lines.push(`  ${label} ${keys.length ? keys.join(", ") : "none"}`);
  list("would create:", changes.create);
  list("would delete:", changes.delete);
  list("would keep:  ", changes.keep);
  if (input.decisions.length) lines.push(`Decisions:     ${formatDecisions(input.decisions)}`);
  if (response.resyncAfterSeconds !== undefined) {
    const at = new Date(input.now.getTime() + response.resyncAfterSeconds * 1000);
    lines.push(`Next sync:     in ${response.resyncAfterSeconds} s (${at.toISOString()})`);
  }
  if (input.finalizing && response.finalized !== undefined) lines.push(`Finalized:     ${response.finalized}`);
  return lines.join("\n") + "\n";
}
