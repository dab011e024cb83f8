/**
 * Reading manifests the way `kubectl apply -f` reads them.
 *
 * kubectl (and helm, and every client built on `sigs.k8s.io/yaml`) turns YAML into JSON with a
 * fork of go-yaml v2, which resolves plain scalars by YAML 1.1's rules, not 1.2's: `yes`, `on`,
 * `y` are `true` (and `no`, `off`, `n` false), `0500` is octal (320), `1_000` is 1000. A reader
 * with YAML 1.2's core schema sees the strings "yes" and the number 500 instead, so a simulation
 * of `startingDeadlineSeconds: 0500` or `suspend: yes` would not be the CronJob the cluster
 * stores. go-yaml v2 differs from YAML 1.1 in three ways that matter here, measured against
 * helm v4's `fromYaml` (which is `sigs.k8s.io/yaml`):
 * - timestamps stay strings (`2026-03-26`): go-yaml v2 gives a string when decoding into an
 *   untyped value, for backward compatibility;
 * - no base-60 numbers: `1:30` and `190:20:30` stay strings;
 * - `0o17` is octal too (Go's `strconv.ParseInt` with base 0).
 *
 * @packageDocumentation
 */
import { parseAllDocuments, Scalar, type ScalarTag, type Tags } from "yaml";

const INT_TAG = "tag:yaml.org,2002:int";
const FLOAT_TAG = "tag:yaml.org,2002:float";

/** `0o17`: Go's ParseInt(s, 0, 64) reads it as octal, as it reads `017`. */
const goOctal: ScalarTag = {
  tag: INT_TAG,
  format: "OCT",
  default: true,
  identify: () => false,
  test: /^[-+]?0o[0-7_]+$/,
  resolve: (text: string) => {
    const sign = text.startsWith("-") ? -1 : 1;
    return sign * parseInt(text.replace(/^[-+]?0o/, "").replaceAll("_", ""), 8);
  },
};

/**
 * A number tag whose pattern also matches text that is no number (`.`, `e3`, `0x_`: the YAML 1.1
 * patterns allow an empty digit run) keeps such text a string, as go-yaml v2 does, instead of NaN
 * (which JSON writes as null: `args: [find, ., -name, x]` would lose its dot).
 */
function keepNonNumbers(tag: ScalarTag): ScalarTag {
  if ((tag.tag !== INT_TAG && tag.tag !== FLOAT_TAG) || !tag.resolve) return tag;
  const resolve = tag.resolve;
  return {
    ...tag,
    resolve: (text, onError, options) => {
      const value = resolve(text, onError, options);
      // Some resolve to a Scalar node (to keep the written fraction digits), others to a number.
      const number = value instanceof Scalar ? value.value : value;
      return typeof number === "number" && Number.isNaN(number) && !/^[-+]?\.nan$/i.test(text) ? text : value;
    },
  };
}

/** YAML 1.1's tags as go-yaml v2 resolves them (see the module comment). */
function goYamlTags(tags: Tags): Tags {
  const kept = tags
    .filter((t) => {
      const tag = t as ScalarTag;
      return tag.tag !== "tag:yaml.org,2002:timestamp" && tag.format !== "TIME";
    })
    .map((t) => (typeof t === "object" && "resolve" in t ? keepNonNumbers(t as ScalarTag) : t));
  return [...kept, goOctal];
}

/**
 * Most aliases one document may expand: a "billion laughs" file is refused, not expanded, while a
 * manifest that shares one anchor among a few hundred env entries still reads (kubectl has no limit).
 */
const MAX_ALIAS_COUNT = 1000;

/**
 * The documents of a (multi-document) YAML or JSON text as JSON values, read as `kubectl apply`
 * reads them (YAML 1.1 scalars as go-yaml v2 resolves them, merge keys `<<`); empty documents are
 * left out.
 * @throws Error with the first syntax error of the first document that has one (its message
 *   gives line and column), or when a document expands more than 1000 aliases
 */
export function parseManifests(text: string): unknown[] {
  const values: unknown[] = [];
  for (const doc of parseAllDocuments(text, { version: "1.1", customTags: goYamlTags })) {
    if (doc.errors.length > 0) throw new Error(doc.errors[0]!.message);
    const value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
    if (value !== null && value !== undefined) values.push(value);
  }
  return values;
}
