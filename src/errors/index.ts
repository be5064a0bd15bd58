export { ContextUpdateError, type ContextUpdateProblem } from "./context-update-error.js";
export { type ErrorFault, NousError, type NousErrorOptions, UserError } from "./nous-error.js";
export { SessionLogFormatError } from "./session-log-format-error.js";
