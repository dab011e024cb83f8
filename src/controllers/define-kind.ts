/**
 * Turns a {@link KindDeclaration} into a registered {@link Kind}: the CRD, the CompositeController
 * and the children's group keys are derived here, the same way for every kind.
 *
 * @packageDocumentation
 */
import { buildCrd } from "../crd/build-crd.ts";
import { invalidRequest } from "../errors.ts";
import type { ChildResource, Kind, KindDeclaration, ParentResource } from "./types.ts";

/**
 * The `timeout` of every hook in the generated CompositeControllers. Our hooks answer in
 * milliseconds; this is Metacontroller's own default, written out so the chart can override it
 * per kind (`controllers.<kind>.hookTimeout`).
 */
export const HOOK_TIMEOUT = "10s";

/** The CompositeController API our manifests use. */
const COMPOSITE_CONTROLLER_API_VERSION = "metacontroller.k8s.io/v1alpha1";

/**
 * The key of a child group in hook requests and responses: `<kind>.<apiVersion>`, e.g.
 * `Job.batch/v1`, `Service.v1` (Metacontroller's `children` / `related` maps).
 */
export function groupKey(child: Pick<ChildResource, "apiVersion" | "kind">): string {
  return `${child.kind}.${child.apiVersion}`;
}

/** `group` and `version` of an `apiVersion` (`v1` is the core group `""`). */
function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The CRD of a parent resource: `<plural>.<group>`. */
function crdOf<O>(decl: KindDeclaration<O>): Record<string, unknown> {
  const parent: ParentResource = decl.parent;
  const { group, version } = splitApiVersion(parent.apiVersion);
  return buildCrd({
    group,
    version,
    kind: parent.kind,
    plural: parent.plural,
    singular: parent.singular,
    ...(parent.shortNames ? { shortNames: parent.shortNames } : {}),
    ...(parent.categories ? { categories: parent.categories } : {}),
    spec: decl.schema.spec,
    status: decl.schema.status,
    ...(decl.schema.celRules ? { specValidations: decl.schema.celRules } : {}),
    ...(decl.defaults ? { defaults: decl.defaults } : {}),
    description: decl.schema.description,
    printerColumns: decl.schema.printerColumns,
  });
}

/**
 * The CompositeController of a kind: `generateSelector: true` (children carry
 * `controller-uid=<parent uid>`, so the parent needs no selector field), the parent and child
 * resources as declared (a child without an update strategy is `OnDelete`, Metacontroller's
 * default, and gets no `updateStrategy` key), and one hook per declared hook at
 * `<base>/<hook>/<kind name>`, hook version v1.
 */
function compositeControllerOf<O>(decl: KindDeclaration<O>, base: string): Record<string, unknown> {
  const hook = (name: string) => ({ webhook: { url: `${base}/${name}/${decl.name}`, timeout: HOOK_TIMEOUT }, version: "v1" });
  const hooks: Record<string, unknown> = { sync: hook("sync"), finalize: hook("finalize") };
  if (decl.hooks.customize) hooks.customize = hook("customize");
  return {
    apiVersion: COMPOSITE_CONTROLLER_API_VERSION,
    kind: "CompositeController",
    metadata: { name: `${decl.name}-controller` },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: decl.parent.apiVersion, resource: decl.parent.plural },
      childResources: decl.children.map((c) => ({
        apiVersion: c.apiVersion,
        resource: c.resource,
        ...(c.updateStrategy && c.updateStrategy !== "OnDelete" ? { updateStrategy: { method: c.updateStrategy } } : {}),
      })),
      hooks,
    },
  };
}

const NAME = /^[a-z][a-z0-9-]{0,62}$/;

/**
 * Registers a kind.
 * @throws Error when the declaration is inconsistent (a name that is not a route segment, two
 *   children with one group key)
 */
export function defineKind<O>(decl: KindDeclaration<O>): Kind<O> {
  if (!NAME.test(decl.name)) throw new Error(`kind name ${JSON.stringify(decl.name)} must be a lower-case route segment`);
  const keys = decl.children.map(groupKey);
  if (new Set(keys).size !== keys.length) throw new Error(`${decl.name}: two children share a group key (${keys.join(", ")})`);
  const customize = decl.hooks.customize;
  return {
    declaration: decl,
    name: decl.name,
    apiVersion: decl.parent.apiVersion,
    kind: decl.parent.kind,
    admission: decl.admission,
    hasCustomize: customize !== undefined,
    sync: (request, now, options) => decl.hooks.sync(request, now, options),
    finalize: (request, now, options) => decl.hooks.finalize(request, now, options),
    customize: (request, options) => {
      if (!customize) throw invalidRequest(`the ${decl.name} controller has no customize hook`);
      return customize.call(decl.hooks, request, options);
    },
    loadOptions: (env) => (decl.options ? decl.options.load(env) : (undefined as O)),
    crd: () => crdOf(decl),
    compositeController: (base) => compositeControllerOf(decl, base),
  };
}
