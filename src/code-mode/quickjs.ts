/**
 * Where QuickJS is installed: `quickjs-emscripten-core` (the library) and
 * `@jitl/quickjs-wasmfile-release-sync` (the one WebAssembly build the sandbox runs), optional peers
 * resolved when `nous/code-mode` loads. Without them, importing `nous/code-mode` fails with one
 * `OptionalPeerMissingError` naming the install command. The sandbox's worker loads them from these
 * paths.
 */
import { createRequire } from "node:module";
import { loadPeers } from "../peers/optional-peers.js";

export const quickjsPaths = await loadPeers("nous/code-mode", async () => {
  const require = createRequire(import.meta.url);
  return {
    corePath: require.resolve("quickjs-emscripten-core"),
    variantPath: require.resolve("@jitl/quickjs-wasmfile-release-sync"),
  };
});
