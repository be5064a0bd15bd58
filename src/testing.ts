/**
 * Deterministic models for tests: `import { ScriptedModel, FunctionModel, TestModel } from "nous/testing"`.
 */

export { UnsupportedSchemaError } from "./errors/user-errors.js";
export { FunctionModel, type ModelFunction } from "./models/function-model.js";
export { ReplayModel } from "./models/replay-model.js";
export { sampleFromSchema } from "./models/schema-sample.js";
export { ScriptedModel, type ScriptStep, UnexpectedModelCallError } from "./models/scripted-model.js";
export type { ScriptedResponse } from "./models/scripted-response.js";
export { TestModel, type TestModelOptions } from "./models/test-model.js";
export { forgetSecretsForTesting } from "./redaction/secret-registry.js";
