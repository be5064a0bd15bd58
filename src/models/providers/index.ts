import type { ModelFactory } from "../registry.js";
import { createTestModel } from "../test-model.js";

/** The providers `"provider:model"` strings resolve to out of the box. */
export const builtinProviders: Record<string, ModelFactory> = {
  test: (modelId) => createTestModel(modelId),
};
