import { afterAll, beforeAll, beforeEach } from "vitest";
import { type FakeServer, startFakeServer } from "../../models/providers/test-support/fake-server.js";
import type { RetryPolicy } from "../../models/retry.js";
import type { EmbeddingModel } from "../embedding-model.js";

/** Retries without waiting; each delay the policy decided is pushed to `delays`. */
export function instantRetry(delays: number[], extra: RetryPolicy = {}): RetryPolicy {
  return { sleep: async (ms) => void delays.push(ms), random: () => 0.5, ...extra };
}

/** One fake server for the test file: started before its tests, emptied before each, closed after. */
export function useFakeServer(): { readonly server: FakeServer } {
  let server: FakeServer | undefined;
  beforeAll(async () => {
    server = await startFakeServer();
  });
  afterAll(() => server?.close());
  beforeEach(() => server?.reset());
  return {
    get server(): FakeServer {
      if (server === undefined) throw new Error("the fake server starts in beforeAll");
      return server;
    },
  };
}

/** An embedding model of the given batch size whose calls `doEmbed` answers. */
export function embeddingModelOf(
  provider: string,
  maxBatchSize: number,
  doEmbed: EmbeddingModel["doEmbed"],
): EmbeddingModel {
  return { specificationVersion: "nous-embedding-v1", provider, modelId: "m", maxBatchSize, doEmbed };
}
