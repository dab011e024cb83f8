/**
 * Status conditions as in the Kubernetes API conventions (metav1.Condition).
 *
 * @packageDocumentation
 */
import { formatTime } from "./time.ts";

/** A metav1.Condition. `reason` is CamelCase; times are RFC 3339. */
export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

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
export function withTransitionTime(previous: unknown, next: ConditionInput, now: Date): Condition {
  const old = Array.isArray(previous)
    ? (previous as Array<Partial<Condition>>).find((c) => c && typeof c === "object" && c.type === next.type)
    : undefined;
  const kept =
    old && old.status === next.status && typeof old.lastTransitionTime === "string" ? old.lastTransitionTime : undefined;
  return { ...next, lastTransitionTime: kept ?? formatTime(now) };
}

/** Applies {@link withTransitionTime} to a list, keeping the order given. */
export function withTransitionTimes(previous: unknown, next: ConditionInput[], now: Date): Condition[] {
  return next.map((c) => withTransitionTime(previous, c, now));
}
