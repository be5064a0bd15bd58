/**
 * Code mode: `import { codeMode } from "nous/code-mode"`. The model writes a JavaScript program that
 * calls the agent's tools; it runs in a WebAssembly sandbox (QuickJS) in a worker thread.
 */
export { type CodeModeOptions, type CodeModeResult, codeMode } from "./code-mode/code-mode.js";
export { type DeclaredTool, schemaToType, toolDeclarations } from "./code-mode/declarations.js";
export { CodeExecutionError, CodeLimitError, type CodeLimitName } from "./code-mode/errors.js";
export { type CodeLimits, defaultLimits } from "./code-mode/limits.js";
