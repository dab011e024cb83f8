/**
 * Admission webhook routes: `POST /validate/<kind>` and `POST /mutate/<kind>` for every kind
 * that has admission support. Mounted by the express app; all decisions are in admission.ts.
 *
 * @packageDocumentation
 */
import express, { type Request, type RequestHandler, type Response } from "express";
import { HookError, malformedJson } from "../errors.ts";
import { postOnly } from "../http/listener.ts";
import type { ConfiguredController } from "../controllers/registry.ts";
import { mutateAdmission, validateAdmission, type AdmissionOutcome } from "./admission.ts";

/** The admission routes the given controllers get, e.g. `["/validate/cronjob", "/mutate/cronjob"]`. */
export function admissionPaths(controllers: ConfiguredController[]): string[] {
  return controllers.filter((c) => c.def.admission).flatMap((c) => [`/validate/${c.def.name}`, `/mutate/${c.def.name}`]);
}

/**
 * A router with the admission routes. Answers are always HTTP 200 with an AdmissionReview (a
 * denial is `allowed: false`, not an HTTP error); a body that is not an AdmissionReview gets the
 * app's JSON error envelope (400/422), which the apiserver treats as a failed call and handles
 * by the webhook's `failurePolicy`.
 *
 * @param controllers - the configured kinds; those without `admission` get no routes
 * @param json - the app's JSON body parser (same limit and error mapping as the hooks)
 * @param authenticate - on the hook port with `AUTH_TOKEN_FILE`: the same bearer-token check as
 *   the hook routes (401 otherwise). The apiserver-facing HTTPS listener passes none: the
 *   apiserver sends no token, TLS and the NetworkPolicy protect that port.
 */
export function createAdmissionRouter(
  controllers: ConfiguredController[],
  json: RequestHandler,
  authenticate?: (authorizationHeader: string | undefined) => boolean,
): express.Router {
  // Exact paths, as on the listener apps (a router does not inherit their routing settings).
  const router = express.Router({ caseSensitive: true, strict: true });
  const guard: RequestHandler = (req, res, next) => {
    if (authenticate && !authenticate(req.headers.authorization)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="metahooks"');
      throw new HookError(401, "unauthorized", "missing or invalid bearer token");
    }
    next();
  };
  for (const { def } of controllers) {
    if (!def.admission) continue;
    const routes: Array<[string, (body: unknown) => AdmissionOutcome]> = [
      ["validate", (body) => validateAdmission(def, body)],
      ["mutate", (body) => mutateAdmission(def, body)],
    ];
    for (const [hook, handle] of routes) {
      router.post(`/${hook}/${def.name}`, guard, json, (req: Request, res: Response) => {
        const log: Record<string, unknown> = { controller: def.name, hook };
        res.locals.hookLog = log;
        if (req.body === undefined || req.headers["content-length"] === "0") throw malformedJson("empty body");
        const outcome = handle(req.body);
        log.decision = outcome.decision;
        if (outcome.object) log.parent = outcome.object;
        res.status(200).json(outcome.review);
      });
      router.all(`/${hook}/${def.name}`, postOnly);
    }
  }
  return router;
}
