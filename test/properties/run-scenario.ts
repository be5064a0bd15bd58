/**
 * Random agent runs for the log's property test: scripted turns of sequential or parallel calls to
 * tools that record updates, fail (with or without recording what they did), need approval, run
 * code-mode programs and delegate to a sub-agent (which may need approval too). `plans` generates them; `agentFor` builds the agent that plays one.
 */
import fc from "fast-check";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { codeMode } from "../../src/code-mode/code-mode.js";
import { ContextUpdate } from "../../src/context/context-update.js";
import { ToolFailedError } from "../../src/errors/tool-failed-error.js";
import { FunctionModel } from "../../src/models/function-model.js";
import { ScriptedModel } from "../../src/models/scripted-model.js";
import type { ApprovalDecision } from "../../src/runner/types.js";
import type { RunContext } from "../../src/session/run-context.js";
import { agentAsTool } from "../../src/sub-agents/sub-agent.js";
import { tool } from "../../src/tools/tool.js";

export interface Deps {
  /** Every call whose update was recorded appends its own call id: the log must say which call did it. */
  trail: string[];
}

/** A statement of a code-mode program. */
export type Statement =
  | { readonly kind: "call"; readonly tag: string }
  | { readonly kind: "loop"; readonly times: number }
  | { readonly kind: "all"; readonly tags: readonly string[] }
  | { readonly kind: "caught-failure" }
  | { readonly kind: "failure" }
  | { readonly kind: "approval"; readonly approve: boolean };

/** How a `bump` call ends: it records its update, throws, or fails having recorded its update. */
export type BumpEnd = "ok" | "throw" | "fail-with-update";

export type Call =
  | { readonly kind: "bump"; readonly end: BumpEnd }
  | { readonly kind: "guarded"; readonly approve: boolean }
  | { readonly kind: "code"; readonly program: readonly Statement[] }
  | { readonly kind: "child"; readonly approve: boolean | undefined };

export interface Plan {
  readonly turns: readonly (readonly Call[])[];
  readonly parallel: boolean;
}

const statement: fc.Arbitrary<Statement> = fc.oneof(
  fc.record({ kind: fc.constant("call" as const), tag: fc.constantFrom("a", "b") }),
  fc.record({ kind: fc.constant("loop" as const), times: fc.integer({ min: 1, max: 3 }) }),
  fc.record({
    kind: fc.constant("all" as const),
    tags: fc.array(fc.constantFrom("p", "q"), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant("caught-failure" as const) }),
  fc.record({ kind: fc.constant("failure" as const) }),
  fc.record({ kind: fc.constant("approval" as const), approve: fc.boolean() }),
);

const call: fc.Arbitrary<Call> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("bump" as const),
      end: fc.constantFrom<BumpEnd>("ok", "throw", "fail-with-update"),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant("guarded" as const), approve: fc.boolean() }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant("code" as const),
      program: fc.array(statement, { minLength: 1, maxLength: 4 }),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("child" as const), approve: fc.option(fc.boolean(), { nil: undefined }) }),
    weight: 1,
  },
);

export const plans: fc.Arbitrary<Plan> = fc.record({
  turns: fc.array(fc.array(call, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
  parallel: fc.boolean(),
});

/** The program's source: tags carry whether an approval is to be granted (`yes…`/`no…`). */
export function programSource(program: readonly Statement[]): string {
  const lines = program.map((item, index) => {
    switch (item.kind) {
      case "call":
        return `await tools.bump({ tag: "${item.tag}${index}" });`;
      case "loop":
        return `for (let i = 0; i < ${item.times}; i++) await tools.bump({ tag: "l${index}-" + i });`;
      case "all":
        return `await Promise.all([${item.tags.map((tag, at) => `tools.bump({ tag: "${tag}${index}-${at}" })`).join(", ")}]);`;
      case "caught-failure":
        return `try { await tools.bump({ tag: "f${index}", end: "fail-with-update" }); } catch (error) { console.log("caught"); }`;
      case "failure":
        return `await tools.bump({ tag: "x${index}", end: "throw" });`;
      case "approval":
        return `try { await tools.guarded({ tag: "${item.approve ? "yes" : "no"}${index}" }); } catch (error) { console.log("refused"); }`;
      default: {
        const unreachable: never = item;
        return unreachable;
      }
    }
  });
  return [...lines, `return "ran";`].join("\n");
}

/** The decision a person makes for a guarded call: its tag says. */
export function decisionFor(args: unknown): ApprovalDecision {
  const tag = (args as { tag?: string }).tag ?? "";
  return tag.startsWith("yes") ? { type: "approve" } : { type: "reject", reason: "not this one" };
}

function recordingTools() {
  const record = (tag: string, toolCallId: string | undefined) => ({
    result: tag,
    update: ContextUpdate.new<Deps>().append("trail", toolCallId ?? "?"),
  });
  const bump = tool({
    name: "bump",
    description: "Records that it ran",
    input: z.object({ tag: z.string(), end: z.enum(["ok", "throw", "fail-with-update"]).optional() }),
    execute: ({ tag, end }, context: RunContext<Deps>) => {
      if (end === "throw") throw new Error(`bump ${tag} failed`);
      const recorded = record(tag, context.toolCallId);
      if (end === "fail-with-update") throw new ToolFailedError(`bump ${tag} failed`, { update: recorded.update });
      return recorded;
    },
  });
  const guarded = tool({
    name: "guarded",
    description: "Records that it ran, once approved",
    input: z.object({ tag: z.string() }),
    needsApproval: true,
    execute: ({ tag }, context: RunContext<Deps>) => record(tag, context.toolCallId),
  });
  return { bump, guarded };
}

/** The sub-agent: calls `bump`, and `guarded` when its prompt says `yes`/`no`, then answers. */
function childAgent(inlineApprovals: boolean) {
  const { bump, guarded } = recordingTools();
  const model = new FunctionModel((request) => {
    const last = request.messages.at(-1);
    if (last?.role !== "user") return { text: "child done" };
    const prompt = JSON.stringify(last.content);
    const calls: { name: string; args: unknown }[] = [{ name: "bump", args: { tag: "child" } }];
    if (prompt.includes("yes") || prompt.includes("no"))
      calls.push({ name: "guarded", args: { tag: prompt.includes("yes") ? "yes-child" : "no-child" } });
    return { toolCalls: calls };
  });
  return new Agent<Deps>({
    name: "helper",
    model,
    tools: [bump, guarded],
    ...(inlineApprovals ? { approvalHandler: (request: { args: unknown }) => decisionFor(request.args) } : {}),
  });
}

/** The agent that plays `plan`; with `inlineApprovals`, approvals are decided by a handler during the run. */
export function agentFor(plan: Plan, inlineApprovals: boolean): Agent<Deps> {
  const { bump, guarded } = recordingTools();
  const helper = agentAsTool<Deps, string, Deps>(childAgent(inlineApprovals), {
    name: "helper",
    description: "Asks the helper",
    deps: () => ({ trail: [] }),
  });
  const script = plan.turns.map((turn, turnIndex) => ({
    toolCalls: turn.map((item, index) => {
      const id = `t${turnIndex}c${index}`;
      switch (item.kind) {
        case "bump":
          return { id, name: "bump", args: { tag: id, end: item.end } };
        case "guarded":
          return { id, name: "guarded", args: { tag: `${item.approve ? "yes" : "no"}-${id}` } };
        case "code":
          return { id, name: "run_code", args: { code: programSource(item.program) } };
        case "child":
          return {
            id,
            name: "helper",
            args: { prompt: item.approve === undefined ? "help" : item.approve ? "yes" : "no" },
          };
        default: {
          const unreachable: never = item;
          return unreachable;
        }
      }
    }),
  }));
  return new Agent<Deps>({
    name: "property",
    model: new ScriptedModel([...script, { text: "done" }]),
    tools: [bump, guarded, helper, codeMode({ tools: ["bump", "guarded"] })],
    parallelToolCalls: plan.parallel,
    ...(inlineApprovals ? { approvalHandler: (request: { args: unknown }) => decisionFor(request.args) } : {}),
  });
}
