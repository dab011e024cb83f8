/**
 * Pinned versions of the e2e control plane. The build cache is keyed by them, so a change here
 * rebuilds; go.mod must agree (gen-go-mod.ts writes it from KUBERNETES_VERSION).
 */

/** Release of k8s.io/kubernetes that kube-apiserver is built from. */
export const KUBERNETES_VERSION = "v1.35.4";
/** etcd release that k8s.io/kubernetes v1.35.4 pins in its go.mod (go.etcd.io/etcd/server/v3). */
export const ETCD_VERSION = "v3.6.5";
