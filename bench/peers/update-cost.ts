/**
 * Cost of a context update applied through a run, in process (no HTTP), as the state grows.
 *
 * Each run is K tool turns then the final answer, on a deterministic in-process model. Runs where the
 * tool returns a plain value are interleaved, pair by pair (first mover alternating), with runs where
 * it also returns an update; cost per update = median paired difference / K. The state starts with
 * SIZE entries in a list (`sums`) and a counter:
 *   append — the update appends to the SIZE-entry list
 *   set    — the update sets the counter, next to the SIZE-entry list
 *
 * Nous: `ScriptedModel` (src/testing.ts), a fresh one per run; the tool returns
 * `{ result, update: ContextUpdate.new().append("sums", n) }` (or `.set("counter", n)`).
 * LangGraph: `createReactAgent` with a scripted chat model and a state schema holding `sums`
 * (concat reducer, as in the LangGraph docs) and `counter`; the tool returns
 * `new Command({ update: { sums: [n] | counter: n, messages: [ToolMessage] } })`.
 */
import { FINAL, K } from "./frameworks.ts";

/**
 * The state sizes: `BENCH_UPDATE_SIZES` (comma-separated), else up to 1,000,000 items for the
 * targets run (`--targets`, issue 20: flat from 10 to 1,000,000), else up to 100,000.
 */
export const SIZES = process.env.BENCH_UPDATE_SIZES
  ? process.env.BENCH_UPDATE_SIZES.split(",").map(Number)
  : process.env.BENCH_TARGETS === "1" || process.argv.includes("--targets")
    ? [10, 10_000, 100_000, 1_000_000]
    : [10, 10_000, 100_000];
export const VARIANTS = ["append", "set"] as const;
export type Variant = (typeof VARIANTS)[number];

interface Subject {
  /** One run; `update` picks the variant, or none (plain). Throws unless the run did what it should. */
  once(variant: Variant | undefined, size: number): Promise<void>;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const initialStates = new Map<number, { sums: number[]; counter: number }>();
/** The initial state for a size (built once; neither framework may mutate it, and both are checked). */
function initialState(size: number) {
  let state = initialStates.get(size);
  if (state === undefined) {
    state = { sums: Array.from({ length: size }, (_, index) => index), counter: 0 };
    initialStates.set(size, state);
  }
  return state;
}

function expectState(
  name: string,
  variant: Variant | undefined,
  size: number,
  state: { sums?: unknown; counter?: unknown },
) {
  const sums = state.sums as number[];
  const wantSums = size + (variant === "append" ? K : 0);
  const wantCounter = variant === "set" ? K : 0;
  if (sums.length !== wantSums || state.counter !== wantCounter) {
    throw new Error(
      `${name} ${variant ?? "plain"} @${size}: ${sums.length} sums and counter ${String(state.counter)}, expected ${wantSums} and ${wantCounter}`,
    );
  }
  if (initialState(size).sums.length !== size) throw new Error(`${name}: the initial state was mutated`);
}

async function nous(): Promise<Subject> {
  const entry = process.env.NOUS_ENTRY ?? "../../src/index.ts";
  const { Agent, ContextUpdate, tool } = (await import(entry)) as typeof import("../../src/index.ts");
  const { ScriptedModel } = (await import(entry.replace(/index\.(ts|js)$/, "testing.$1"))) as typeof import(
    "../../src/testing.ts"
  );
  const { z } = await import("zod");
  type Deps = { sums: number[]; counter: number };
  const script = [
    ...Array.from({ length: K }, () => ({ toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] })),
    { text: FINAL },
  ];
  const input = z.object({ a: z.number(), b: z.number() });
  let turn = 0;
  const tools = {
    plain: tool<typeof input, number, Deps>({
      name: "add",
      description: "Add two numbers",
      input,
      execute: ({ a, b }) => a + b,
    }),
    append: tool({
      name: "add",
      description: "Add two numbers",
      input,
      execute: ({ a, b }) => ({ result: a + b, update: ContextUpdate.new<Deps>().append("sums", a + b) }),
    }),
    set: tool({
      name: "add",
      description: "Add two numbers",
      input,
      execute: ({ a, b }) => ({ result: a + b, update: ContextUpdate.new<Deps>().set("counter", ++turn) }),
    }),
  };
  return {
    async once(variant, size) {
      turn = 0;
      const model = new ScriptedModel(script);
      const agent = new Agent<Deps>({ model, tools: [tools[variant ?? "plain"]], maxIterations: K + 5 });
      const result = await agent.run("Add 1 and 2, ten times.", { deps: initialState(size) });
      model.assertAllUsed();
      if (result.output !== FINAL) throw new Error(`nous: final answer ${JSON.stringify(result.output)}`);
      expectState("nous", variant, size, result.deps);
    },
  };
}

async function langGraph(): Promise<Subject> {
  const { Annotation, Command, MessagesAnnotation } = await import("@langchain/langgraph");
  const { createReactAgent } = await import("@langchain/langgraph/prebuilt");
  const { BaseChatModel } = await import("@langchain/core/language_models/chat_models");
  const { AIMessage, ToolMessage } = await import("@langchain/core/messages");
  const { tool } = await import("@langchain/core/tools");
  const { z } = await import("zod");
  type Message = InstanceType<typeof AIMessage>;

  /** K tool calls `add` with ids call_<n>, then the final text: scripted from the messages alone. */
  class ScriptedChatModel extends BaseChatModel {
    _llmType() {
      return "scripted";
    }
    override bindTools() {
      return this;
    }
    async _generate(messages: { getType(): string }[]) {
      const done = messages.filter((message) => message.getType() === "tool").length;
      const message: Message =
        done < K
          ? new AIMessage({
              content: "",
              tool_calls: [{ id: `call_${done}`, name: "add", args: { a: 1, b: 2 }, type: "tool_call" }],
            })
          : new AIMessage(FINAL);
      return { generations: [{ message, text: typeof message.content === "string" ? message.content : "" }] };
    }
  }

  const State = Annotation.Root({
    ...MessagesAnnotation.spec,
    sums: Annotation<number[]>({ reducer: (left, right) => left.concat(right), default: () => [] }),
    counter: Annotation<number>(),
  });
  const schema = z.object({ a: z.number(), b: z.number() });
  let turn = 0;
  const make = (variant: Variant | undefined) =>
    createReactAgent({
      llm: new ScriptedChatModel({}),
      stateSchema: State,
      tools: [
        tool(
          async ({ a, b }: { a: number; b: number }, config) => {
            if (variant === undefined) return String(a + b);
            const message = new ToolMessage({ content: String(a + b), tool_call_id: config.toolCall!.id! });
            const update = variant === "append" ? { sums: [a + b] } : { counter: ++turn };
            return new Command({ update: { ...update, messages: [message] } });
          },
          { name: "add", description: "Add two numbers", schema },
        ),
      ],
    });
  const agents = { plain: make(undefined), append: make("append"), set: make("set") };
  return {
    async once(variant, size) {
      turn = 0;
      const initial = initialState(size);
      const state = await agents[variant ?? "plain"].invoke(
        {
          messages: [{ role: "user", content: "Add 1 and 2, ten times." }],
          sums: initial.sums,
          counter: initial.counter,
        },
        { recursionLimit: 2 * K + 10 },
      );
      if (state.messages.at(-1)?.content !== FINAL)
        throw new Error(`langgraph: final answer ${JSON.stringify(state.messages.at(-1)?.content)}`);
      expectState("langgraph", variant, size, state);
    },
  };
}

export interface UpdateCell {
  variant: Variant;
  size: number;
  pairs: number;
  plainMs: number;
  updateMs: number;
  /** Median paired difference / K, in µs. */
  perUpdateUs: number;
}

/** Every (variant, size) cell for one framework, interleaved pairs within each cell. */
export async function updateCost(name: string, quick: boolean): Promise<UpdateCell[]> {
  const subject = name === "nous" ? await nous() : name === "langgraph" ? await langGraph() : undefined;
  if (!subject) throw new Error(`no update-cost subject ${name}`);
  const slow = name === "langgraph";
  const warmup = slow ? (quick ? 5 : 10) : 100;
  const warmupMs = quick ? 150 : 500;
  const minPairs = slow ? (quick ? 12 : 40) : quick ? 30 : 200;
  const maxPairs = slow ? 200 : 3000;
  const budgetMs = quick ? 400 : 2_500;
  const cells: UpdateCell[] = [];
  for (const variant of VARIANTS) {
    for (const size of SIZES) {
      const warming = performance.now();
      for (let index = 0; index < warmup && (index < 3 || performance.now() - warming < warmupMs); index++) {
        await subject.once(undefined, size);
        await subject.once(variant, size);
      }
      const plain: number[] = [];
      const updated: number[] = [];
      const diffs: number[] = [];
      const started = performance.now();
      for (let index = 0; index < maxPairs && (index < minPairs || performance.now() - started < budgetMs); index++) {
        const order = index % 2 === 0 ? [undefined, variant] : [variant, undefined];
        const times: number[] = [];
        for (const which of order) {
          const start = performance.now();
          await subject.once(which, size);
          times.push(performance.now() - start);
        }
        const [plainMs, updateMs] = index % 2 === 0 ? [times[0]!, times[1]!] : [times[1]!, times[0]!];
        plain.push(plainMs);
        updated.push(updateMs);
        diffs.push(updateMs - plainMs);
      }
      cells.push({
        variant,
        size,
        pairs: diffs.length,
        plainMs: median(plain),
        updateMs: median(updated),
        perUpdateUs: (median(diffs) * 1000) / K,
      });
    }
  }
  return cells;
}
