import { anthropicFixture } from "./test-support/anthropic.fixture.js";
import { runProviderSuite } from "./test-support/provider-suite.js";

runProviderSuite(anthropicFixture);
