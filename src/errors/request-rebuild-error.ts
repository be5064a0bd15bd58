import { UserError } from "./nous-error.js";

/** Why a recorded request cannot be rebuilt into a provider body. */
export type RequestRebuildProblem = "no_wire" | "unknown_api" | "unresolved_blobs";

/**
 * `rebuildRequest` was asked for a request it cannot turn into a body: one sent to a model without
 * a wire format (a scripted or function model: `no_wire`), or over a wire format this version of
 * Nous does not know (`unknown_api`), or from a log read from a store whose image and file parts
 * still refer to their blobs (`unresolved_blobs`: pass it through `resolveBlobs(store, log)` first).
 *
 * @example
 * try { rebuildRequest(result.log, seq) } catch (error) {
 *   if (error instanceof RequestRebuildError) console.log(error.problem, error.seq);
 * }
 */
export class RequestRebuildError extends UserError {
  readonly code = "request_not_rebuildable";
  readonly seq: number;
  readonly problem: RequestRebuildProblem;
  readonly api: string | undefined;

  constructor(fields: { seq: number; problem: RequestRebuildProblem; api?: string }) {
    super({
      message:
        fields.problem === "no_wire"
          ? `the request at seq ${fields.seq} went to a model without a wire format (no provider body to rebuild)`
          : fields.problem === "unresolved_blobs"
            ? `the request at seq ${fields.seq} holds image or file parts stored by reference: resolve the log with resolveBlobs(store, log) first`
            : `the request at seq ${fields.seq} went out over wire format "${fields.api}", which this version does not know`,
    });
    this.seq = fields.seq;
    this.problem = fields.problem;
    this.api = fields.api;
  }
}
