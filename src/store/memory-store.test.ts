import { MemoryStore } from "./memory-store.js";
import { describeStoreConformance } from "./test-support/store-conformance.js";

describeStoreConformance({ name: "memory", createStore: () => new MemoryStore() });
