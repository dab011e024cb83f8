/**
 * Status conditions as in the Kubernetes API conventions (metav1.Condition).
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { copyOwn } from "./copy-own.ts";
import { formatTime } from "./time.ts";

/**
 * A metav1.Condition, the one schema every kind's status uses: `reason` is CamelCase and
 * `lastTransitionTime` an RFC 3339 time (the CRDs say `format: date-time`, as upstream does, so a
 * status carrying anything else would be refused; reading a previous status therefore drops
 * conditions that do not match instead of carrying them forward).
 */
export const ConditionSchema = z.object({
  type: z.string(),
  status: z.enum(["True", "False", "Unknown"]),
  reason: z.string(),
  message: z.string(),
  lastTransitionTime: z.iso.datetime({ offset: true }),
  observedGeneration: z.int().optional(),
});

/** A metav1.Condition. */
export type Condition = z.infer<typeof ConditionSchema>;

/** A condition as a hook computes it, before its transition time is known. */
export type ConditionInput = Omit<Condition, "lastTransitionTime">;

/**
 * Gives a freshly computed condition its `lastTransitionTime`: kept from the previous condition
 * of the same type when `status` did not change, else `now`. This keeps status free of "now"
 * unless something actually transitioned, so Metacontroller's status write quiesces.
 *
 * @param previous - the conditions in the parent's current status (may be malformed: ignored then)
 * @param next - the condition computed by this call
 * @param now - the clock of this call
 */
function withTransitionTime(previous: unknown, next: ConditionInput, now: Date): Condition {
  const old = Array.isArray(previous)
    ? (previous as Array<Partial<Condition>>).find((c) => c && typeof c === "object" && c.type === next.type)
    : undefined;
  const kept =
    old && old.status === next.status && typeof old.lastTransitionTime === "string" ? old.lastTransitionTime : undefined;
  // Key by key, not `{ ...next, lastTransitionTime }`: see copyOwn (kube/copy-own.ts).
  const condition = copyOwn(next) as Condition;
  condition.lastTransitionTime = kept ?? formatTime(now);
  return condition;
}

/** Applies {@link withTransitionTime} to a list, keeping the order given. */
export function withTransitionTimes(previous: unknown, next: ConditionInput[], now: Date): Condition[] {
  return next.map((c) => withTransitionTime(previous, c, now));
}
