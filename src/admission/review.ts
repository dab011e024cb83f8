/**
 * The `admission.k8s.io/v1` AdmissionReview envelope, as zod schemas.
 *
 * Shapes follow `k8s.io/api/admission/v1` (types.go): the apiserver POSTs a review with a
 * `request`; the webhook answers a review of the same apiVersion and kind with a `response`
 * whose `uid` echoes `request.uid`. Objects inside are validated loosely: we only insist on what
 * we read.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { KubeObjectSchema, ObjectMetaSchema } from "../metacontroller/contract.ts";

/** The only AdmissionReview version we accept and answer (the chart asks for exactly this one). */
export const ADMISSION_API_VERSION = "admission.k8s.io/v1";

/** `request.operation` values. */
export const AdmissionOperationSchema = z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

/** A group/version/kind triple as the apiserver sends it (`request.kind`). */
const GroupVersionKindSchema = z.looseObject({ group: z.string(), version: z.string(), kind: z.string() });

/**
 * An object inside a review. Like {@link KubeObjectSchema}, except that `metadata.name` may be
 * missing: mutating admission runs before the apiserver turns `generateName` into a name. A
 * missing name reads as `""`.
 */
export const AdmissionObjectSchema = KubeObjectSchema.extend({
  metadata: ObjectMetaSchema.extend({ name: z.string().optional().default("") }),
});

/**
 * `request` of an AdmissionReview. `object` is absent on DELETE and `oldObject` is present only on
 * UPDATE and DELETE; both are `null` rather than absent in some apiserver versions.
 */
export const AdmissionRequestSchema = z.looseObject({
  uid: z.string().min(1),
  kind: GroupVersionKindSchema,
  resource: z.looseObject({ group: z.string(), version: z.string(), resource: z.string() }),
  subResource: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  operation: AdmissionOperationSchema,
  userInfo: z.looseObject({}).optional(),
  object: AdmissionObjectSchema.nullable().optional(),
  oldObject: AdmissionObjectSchema.nullable().optional(),
  dryRun: z.boolean().optional(),
  options: z.looseObject({}).nullable().optional(),
});

/** A parsed admission request. */
export type AdmissionRequest = z.infer<typeof AdmissionRequestSchema>;

/** An AdmissionReview as the apiserver sends it. */
export const AdmissionReviewRequestSchema = z.looseObject({
  apiVersion: z.literal(ADMISSION_API_VERSION),
  kind: z.literal("AdmissionReview"),
  request: AdmissionRequestSchema,
});

/** One field-level cause of a denial (`metav1.StatusCause`). */
export interface StatusCause {
  /** Machine-readable cause: the kind's CamelCase problem reason, e.g. `InvalidSchedule`. */
  reason: string;
  /** JSON path of the field, e.g. `spec.schedule`. */
  field: string;
  message: string;
}

/**
 * `response.status` of a denial (`metav1.Status`). The apiserver prefixes `message` with
 * `admission webhook "<name>" denied the request: ` and returns `code` to the client.
 */
export interface AdmissionStatus {
  status: "Failure";
  /** HTTP code the client sees: 422 for an invalid object, as built-in validation answers. */
  code: number;
  /** `Invalid` for validation failures (metav1.StatusReasonInvalid). */
  reason: string;
  message: string;
  details?: { name?: string; group?: string; kind?: string; causes: StatusCause[] };
}

/** `response` of an AdmissionReview. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  /** base64 of a JSONPatch (RFC 6902) array; only from mutating webhooks. */
  patch?: string;
  patchType?: "JSONPatch";
  /** Shown by kubectl as `Warning: …` (at most 120 characters each is recommended). */
  warnings?: string[];
}

/** The AdmissionReview we answer. */
export interface AdmissionReviewResponse {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: "AdmissionReview";
  response: AdmissionResponse;
}

/** Schema of an answer, used by tests and to check our own output before sending it. */
export const AdmissionReviewResponseSchema = z.strictObject({
  apiVersion: z.literal(ADMISSION_API_VERSION),
  kind: z.literal("AdmissionReview"),
  response: z.strictObject({
    uid: z.string().min(1),
    allowed: z.boolean(),
    status: z
      .strictObject({
        status: z.literal("Failure"),
        code: z.number().int().min(400).max(599),
        reason: z.string().min(1),
        message: z.string().min(1),
        details: z
          .strictObject({
            name: z.string().optional(),
            group: z.string().optional(),
            kind: z.string().optional(),
            causes: z.array(z.strictObject({ reason: z.string(), field: z.string(), message: z.string() })),
          })
          .optional(),
      })
      .optional(),
    patch: z.base64().optional(),
    patchType: z.literal("JSONPatch").optional(),
    warnings: z.array(z.string()).optional(),
  }),
});
