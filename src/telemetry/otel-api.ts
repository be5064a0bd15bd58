import type * as OtelApi from "@opentelemetry/api";
import { loadPeers } from "../peers/optional-peers.js";

/** The OpenTelemetry API, which `nous/telemetry` emits spans through (an optional peer). */
export const otel: typeof OtelApi = await loadPeers("nous/telemetry", () => import("@opentelemetry/api"));
