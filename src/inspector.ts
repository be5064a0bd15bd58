/**
 * `nous/inspector`: the session inspector, a web page over any session store. A separate entry
 * point so that `import … from "nous"` never loads the HTTP server.
 *
 * @example
 * import { startInspector } from "nous/inspector";
 * const inspector = await startInspector({ store });
 * console.log(inspector.url); // http://127.0.0.1:4317/?token=… (a token is required by default)
 */
export { type InspectorOptions, type RunningInspector, startInspector } from "./inspector/server.js";
