import { MemoryStore } from "./memory-store.js";
import { runStoreConformance } from "./store-conformance.js";

runStoreConformance({ name: "memory", createStore: () => new MemoryStore() });
