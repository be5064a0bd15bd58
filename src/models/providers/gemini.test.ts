import { geminiFixture } from "./test-support/gemini.fixture.js";
import { runProviderSuite } from "./test-support/provider-suite.js";

runProviderSuite(geminiFixture);
