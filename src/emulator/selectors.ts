/**
 * Label selectors (metav1.LabelSelector) and the resource → kind table the emulator uses in place
 * of API discovery.
 *
 * @packageDocumentation
 */
import type { Obj } from "./store.ts";

/** A metav1.LabelSelector. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: "In" | "NotIn" | "Exists" | "DoesNotExist"; values?: string[] }>;
}

/** True when `labels` satisfy every term of `selector` (an empty selector matches everything). */
export function matchesSelector(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  const matchLabels = selector.matchLabels ?? {};
  // for-in with an own-key check visits what Object.entries does, without a list per call.
  for (const k in matchLabels) if (Object.hasOwn(matchLabels, k) && l[k] !== matchLabels[k]) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(l, e.key);
    const inValues = has && (e.values ?? []).includes(l[e.key]!);
    if (e.operator === "In" && !inValues) return false;
    if (e.operator === "NotIn" && inValues) return false;
    if (e.operator === "Exists" && !has) return false;
    if (e.operator === "DoesNotExist" && has) return false;
  }
  return true;
}

/** What discovery would tell Metacontroller about a resource. */
export interface ResourceInfo {
  kind: string;
  namespaced: boolean;
}

/** Resource plural → kind, for the kinds our controllers and tests use. */
export const DEFAULT_RESOURCES: Record<string, ResourceInfo> = {
  jobs: { kind: "Job", namespaced: true },
  deployments: { kind: "Deployment", namespaced: true },
  services: { kind: "Service", namespaced: true },
  pods: { kind: "Pod", namespaced: true },
  configmaps: { kind: "ConfigMap", namespaced: true },
  secrets: { kind: "Secret", namespaced: true },
  namespaces: { kind: "Namespace", namespaced: false },
  cronjobs: { kind: "CronJob", namespaced: true },
  cibuilds: { kind: "CIBuild", namespaced: true },
};

/** Object labels, never undefined. */
export function labelsOf(obj: Obj): Record<string, string> {
  return (obj.metadata?.labels ?? {}) as Record<string, string>;
}
