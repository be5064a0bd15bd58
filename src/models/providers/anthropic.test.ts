import { runProviderSuite } from "./test-support/provider-suite.js";
import { anthropicFixture } from "./test-support/anthropic.fixture.js";

runProviderSuite(anthropicFixture);
