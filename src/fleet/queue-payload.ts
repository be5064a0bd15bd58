import type { QueuedAgent, SubmitOptions } from "../agent/run-queue-port.js";
import { QueueArgumentError } from "../errors/fleet-errors.js";
import { parseSecretPaths, valueAt } from "../redaction/secret-paths.js";
import type { Prompt } from "../runner/types.js";
import { findNonJson } from "../session/json-value.js";

/** A queued run as the queue holds it: JSON, and never a secret. Version 1. */
export interface RunPayload {
  readonly v: 1;
  readonly sessionId: string;
  /** The id the run's `run_started` will carry: how a worker taking the job over finds the run. */
  readonly runId: string;
  /** The submitting agent's name: a worker of another agent refuses the job. */
  readonly agent: string | null;
  readonly prompt: Prompt;
  readonly deps: Record<string, unknown>;
  readonly tenant: string;
  /** Epoch ms of the submit. */
  readonly submittedAt: number;
}

const ID = /^[A-Za-z0-9._~-]{1,200}$/;

/** Checks what `submit` was given and builds the payload; `QueueArgumentError` says what is wrong. */
export function buildPayload(
  agent: QueuedAgent,
  prompt: Prompt,
  options: SubmitOptions<object>,
  ids: { sessionId: string; runId: string; now: number },
): RunPayload {
  const sessionId = options.sessionId ?? ids.sessionId;
  if (!ID.test(sessionId)) {
    throw new QueueArgumentError({
      message: `sessionId "${sessionId}" cannot be queued: use 1 to 200 letters, digits and . _ ~ -`,
    });
  }
  const tenant = options.tenant ?? "default";
  if (!ID.test(tenant)) {
    throw new QueueArgumentError({
      message: `tenant "${tenant}" is not valid: use 1 to 200 letters, digits and . _ ~ -`,
    });
  }
  if (typeof prompt !== "string" && !Array.isArray(prompt)) {
    throw new QueueArgumentError({ message: "the prompt must be a string or an array of user content parts" });
  }
  const deps = (options.deps ?? {}) as Record<string, unknown>;
  if (typeof deps !== "object" || deps === null || Array.isArray(deps)) {
    throw new QueueArgumentError({ message: "deps must be a plain object of JSON state" });
  }
  for (const path of parseSecretPaths(agent.secret)) {
    if (valueAt(deps, path) !== undefined) {
      throw new QueueArgumentError({
        message: `deps.${path.join(".")} is a secret path of the agent: a queued run carries no secrets; give it to the workers through their deps({ sessionId, tenant }) factory`,
      });
    }
  }
  const problem = findNonJson({ prompt, deps });
  if (problem !== undefined) {
    throw new QueueArgumentError({
      message: `a queued run is JSON, and ${problem.replace(/^\$/, "submit")} is not: pass live deps through the workers' deps({ sessionId, tenant }) factory`,
    });
  }
  return { v: 1, sessionId, runId: ids.runId, agent: agent.name ?? null, prompt, deps, tenant, submittedAt: ids.now };
}

/** The payload of a job, checked: a job some other program queued is refused, not guessed at. */
export function parsePayload(data: unknown): RunPayload {
  const payload = data as Partial<RunPayload> | null;
  if (
    typeof payload !== "object" ||
    payload === null ||
    payload.v !== 1 ||
    typeof payload.sessionId !== "string" ||
    typeof payload.runId !== "string" ||
    typeof payload.tenant !== "string" ||
    (typeof payload.prompt !== "string" && !Array.isArray(payload.prompt))
  ) {
    throw new QueueArgumentError({ message: "the job's payload is not a Nous run (version 1)" });
  }
  return payload as RunPayload;
}
