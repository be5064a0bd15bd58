import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../agent/agent.js";
import { UnsupportedContentError } from "../../errors/unsupported-content-error.js";
import type { UserContentPart } from "../../session/messages.js";
import type { Model } from "../model.js";
import { anthropicFixture } from "./test-support/anthropic.fixture.js";
import type { DialectFixture } from "./test-support/dialect-fixture.js";
import { type FakeServer, startFakeServer } from "./test-support/fake-server.js";
import { geminiFixture } from "./test-support/gemini.fixture.js";
import { openAIChatFixture } from "./test-support/openai-chat-fixture.js";
import { openAIResponsesFixture } from "./test-support/openai-responses-fixture.js";

const PNG = "iVBORw0KGgoAAAANSUhEUg==";
const PDF = "JVBERi0xLjQK";
const WAV = "UklGRiQAAABXQVZFZm10";
const MP3 = "SUQzBAAAAAAAI1RTU0U=";
const TEXT = "aGVsbG8gd29ybGQ="; // "hello world"

const image: UserContentPart = { type: "image", data: PNG, mediaType: "image/png" };
const pdf: UserContentPart = { type: "file", data: PDF, mediaType: "application/pdf", filename: "report.pdf" };
const wav: UserContentPart = { type: "audio", data: WAV, mediaType: "audio/wav" };

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function modelOf(fixture: DialectFixture): Model {
  return fixture.createModel({ baseURL: server.url, apiKey: "test-key" });
}

/** Sends one user message through an agent to the fake server; returns the body the server received. */
async function sent(fixture: DialectFixture, content: readonly UserContentPart[]): Promise<Record<string, unknown>> {
  server.enqueue(fixture.reply("text", false));
  await new Agent({ model: modelOf(fixture), retry: false }).run(content);
  expect(server.requests).toHaveLength(1);
  return server.requests[0]?.body as Record<string, unknown>;
}

/** Runs an agent whose prompt the provider cannot take: the typed error, and no request reached the server. */
async function refused(fixture: DialectFixture, content: readonly UserContentPart[]): Promise<UnsupportedContentError> {
  server.setFallback(fixture.reply("text", false));
  const error = await new Agent({ model: modelOf(fixture) }).run(content).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(UnsupportedContentError);
  // Nothing sent, and nothing retried: a user error is not a provider's.
  expect(server.requests).toHaveLength(0);
  return error as UnsupportedContentError;
}

describe("user images, PDFs and audio on the wire", () => {
  it("OpenAI Chat: image_url data URL, file with file_data and filename, input_audio with wav and mp3", async () => {
    const body = await sent(openAIChatFixture, [
      { type: "text", text: "Look" },
      image,
      pdf,
      wav,
      { type: "file", data: MP3, mediaType: "audio/mpeg" },
    ]);
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Look" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: "file", file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
          { type: "input_audio", input_audio: { data: WAV, format: "wav" } },
          { type: "input_audio", input_audio: { data: MP3, format: "mp3" } },
        ],
      },
    ]);
  });

  it("OpenAI Chat: audio in a format input_audio does not read is refused before sending", async () => {
    const error = await refused(openAIChatFixture, [{ type: "audio", data: "T2dnUw==", mediaType: "audio/ogg" }]);
    expect(error.code).toBe("unsupported_content");
    expect(error).toMatchObject({ provider: "openai-chat", partType: "audio", mediaType: "audio/ogg" });
    expect(error.place).toBe("user_message");
  });

  it("OpenAI Responses: input_image and input_file; audio is refused before sending", async () => {
    const body = await sent(openAIResponsesFixture, [{ type: "text", text: "Look" }, image, pdf]);
    expect(body.input).toEqual([
      {
        role: "user",
        content: [
          { type: "input_text", text: "Look" },
          { type: "input_image", image_url: `data:image/png;base64,${PNG}` },
          { type: "input_file", filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF}` },
        ],
      },
    ]);
    server.reset();
    const error = await refused(openAIResponsesFixture, [{ type: "text", text: "Transcribe" }, wav]);
    expect(error).toMatchObject({
      provider: "openai",
      partType: "audio",
      mediaType: "audio/wav",
      place: "user_message",
    });
    expect(error.message).toContain("audio");
  });

  it("Anthropic: image block, PDF document (base64), text file as a text document; audio is refused", async () => {
    const body = await sent(anthropicFixture, [
      { type: "text", text: "Look" },
      image,
      pdf,
      { type: "file", data: TEXT, mediaType: "text/plain", filename: "notes.txt" },
    ]);
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Look" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
          {
            type: "document",
            source: { type: "base64", media_type: "application/pdf", data: PDF },
            title: "report.pdf",
          },
          {
            type: "document",
            source: { type: "text", media_type: "text/plain", data: "hello world" },
            title: "notes.txt",
          },
        ],
      },
    ]);
    server.reset();
    // Audio as a `file` part of an audio type is audio too.
    const error = await refused(anthropicFixture, [{ type: "file", data: WAV, mediaType: "audio/wav" }]);
    expect(error).toMatchObject({ provider: "anthropic", partType: "file", mediaType: "audio/wav" });
    server.reset();
    const zip = await refused(anthropicFixture, [{ type: "file", data: "UEsDBA==", mediaType: "application/zip" }]);
    expect(zip.mediaType).toBe("application/zip");
  });

  it("Gemini: inlineData for image, PDF and audio", async () => {
    const body = await sent(geminiFixture, [{ type: "text", text: "Look" }, image, pdf, wav]);
    expect(body.contents).toEqual([
      {
        role: "user",
        parts: [
          { text: "Look" },
          { inlineData: { mimeType: "image/png", data: PNG } },
          { inlineData: { mimeType: "application/pdf", data: PDF } },
          { inlineData: { mimeType: "audio/wav", data: WAV } },
        ],
      },
    ]);
  });

  it("a data: URL is unpacked to the base64 and media type each provider wants", async () => {
    const part: UserContentPart = { type: "audio", data: `data:audio/mpeg;base64,${MP3}`, mediaType: "audio/mpeg" };
    const chat = await sent(openAIChatFixture, [part]);
    expect(chat.messages).toEqual([
      { role: "user", content: [{ type: "input_audio", input_audio: { data: MP3, format: "mp3" } }] },
    ]);
    server.reset();
    const gemini = await sent(geminiFixture, [part]);
    expect(gemini.contents).toEqual([{ role: "user", parts: [{ inlineData: { mimeType: "audio/mpeg", data: MP3 } }] }]);
  });
});
