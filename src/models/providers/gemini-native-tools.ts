import type { ResponsePart } from "../model.js";
import type { ProviderTool, Source } from "../provider-tool.js";
import { list, sourceParts, text, urlSource, wireProviderTools } from "./shared/native-tools.js";

const wireNames: Readonly<Record<string, string>> = {
  google_search: "googleSearch",
  code_execution: "codeExecution",
  url_context: "urlContext",
};

/**
 * The `tools` entries of a request's provider tools (`{ googleSearch: {} }`, ...), added after the
 * function declarations. Tools of other providers are a `ProviderToolUnsupportedError`.
 */
export function geminiBuiltinTools(tools: readonly ProviderTool[] | undefined): Record<string, unknown>[] {
  return wireProviderTools(tools, "gemini", "gemini", (tool) => {
    const name = wireNames[tool.name];
    return name === undefined ? undefined : { [name]: {} };
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Collects what Gemini's built-in tools left in an answer: code runs (`executableCode` and
 * `codeExecutionResult` parts, each result paired with the code before it), Google searches
 * (`groundingMetadata`, whose chunks a stream sends only once) and URL retrievals
 * (`urlContextMetadata`). Ids are the response id with a counter: Gemini gives these none.
 */
export class GeminiBuiltinTools {
  #runs = 0;
  #lastRun: string | undefined;
  readonly #queries: string[] = [];
  readonly #chunks: unknown[] = [];
  readonly #supports: unknown[] = [];
  #entryPoint: unknown;
  readonly #urls: unknown[] = [];

  /** A code execution part as a provider tool call or result; undefined for any other part. */
  codePart(part: Record<string, unknown>, responseId: string | undefined): ResponsePart | undefined {
    if (isRecord(part.executableCode)) {
      this.#runs += 1;
      this.#lastRun = `${responseId ?? "gemini"}_code_execution_${this.#runs}`;
      const { language, code } = part.executableCode;
      return {
        type: "provider-tool-call",
        toolCallId: this.#lastRun,
        toolName: "code_execution",
        input: { language, code },
      };
    }
    if (isRecord(part.codeExecutionResult)) {
      const { outcome, output } = part.codeExecutionResult;
      return {
        type: "provider-tool-result",
        toolCallId: this.#lastRun ?? `${responseId ?? "gemini"}_code_execution_0`,
        toolName: "code_execution",
        result: { outcome: outcome ?? null, output: output ?? "" },
        isError: outcome !== "OUTCOME_OK",
      };
    }
    return undefined;
  }

  /** Takes a candidate's `groundingMetadata` and `urlContextMetadata`. */
  addCandidate(candidate: Record<string, unknown>): void {
    const grounding = candidate.groundingMetadata;
    if (isRecord(grounding)) {
      for (const query of list(grounding, "webSearchQueries")) {
        if (typeof query === "string" && !this.#queries.includes(query)) this.#queries.push(query);
      }
      this.#chunks.push(...list(grounding, "groundingChunks"));
      this.#supports.push(...list(grounding, "groundingSupports"));
      if (grounding.searchEntryPoint !== undefined) this.#entryPoint = grounding.searchEntryPoint;
    }
    this.#urls.push(...list(candidate.urlContextMetadata, "urlMetadata"));
  }

  /** The searches and retrievals as provider tool calls and results, then the sources the text cites. */
  parts(responseId: string | undefined): ResponsePart[] {
    const parts: ResponsePart[] = [];
    const prefix = responseId ?? "gemini";
    if (this.#queries.length > 0 || this.#chunks.length > 0) {
      const id = `${prefix}_google_search`;
      const sources = this.#chunks.flatMap(chunkSource);
      parts.push(
        { type: "provider-tool-call", toolCallId: id, toolName: "google_search", input: { queries: this.#queries } },
        {
          type: "provider-tool-result",
          toolCallId: id,
          toolName: "google_search",
          result: {
            webSearchQueries: this.#queries,
            groundingChunks: this.#chunks,
            ...(this.#supports.length > 0 ? { groundingSupports: this.#supports } : {}),
            ...(this.#entryPoint === undefined ? {} : { searchEntryPoint: this.#entryPoint }),
          },
          isError: false,
          ...(sources.length > 0 ? { sources } : {}),
        },
      );
    }
    if (this.#urls.length > 0) {
      const id = `${prefix}_url_context`;
      const urls = this.#urls.flatMap((entry) => text(entry, "retrievedUrl") ?? []);
      parts.push(
        { type: "provider-tool-call", toolCallId: id, toolName: "url_context", input: { urls } },
        {
          type: "provider-tool-result",
          toolCallId: id,
          toolName: "url_context",
          result: { urlMetadata: this.#urls },
          isError: this.#urls.some((entry) => text(entry, "urlRetrievalStatus") !== "URL_RETRIEVAL_STATUS_SUCCESS"),
          ...(urls.length > 0 ? { sources: urls.map((url) => urlSource(url)) } : {}),
        },
      );
    }
    return [...parts, ...sourceParts(this.#citedSources())];
  }

  /** The chunks the text's grounding supports point at, in order of first mention. */
  #citedSources(): Source[] {
    const cited: number[] = [];
    for (const support of this.#supports) {
      for (const index of list(support, "groundingChunkIndices")) {
        if (typeof index === "number" && !cited.includes(index)) cited.push(index);
      }
    }
    return cited.flatMap((index) => chunkSource(this.#chunks[index]));
  }
}

function chunkSource(chunk: unknown): Source[] {
  const web = isRecord(chunk) ? (chunk.web ?? chunk.retrievedContext) : undefined;
  const uri = text(web, "uri");
  return uri === undefined ? [] : [urlSource(uri, text(web, "title"))];
}
