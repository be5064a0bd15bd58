/** The committed schema file. */
export declare const LOG_SCHEMA_PATH: string;
/** The schema of a session log, generated from src/session/events.ts (a few seconds). */
export declare function buildLogSchema(): Record<string, unknown>;
/** The schema file's text. */
export declare function renderLogSchema(schema?: Record<string, unknown>): string;
