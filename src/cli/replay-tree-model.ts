import type { Model, ModelRequest, ModelResponse, ModelStreamPart, SessionEvent } from "../index.js";
import { ReplayModel, UnexpectedModelCallError } from "../testing.js";
import type { TreeSession } from "./replay-tree.js";

interface Recording {
  readonly path: string;
  /** The JSON of the content of the session's first user message: which conversation it is. */
  readonly prompt: string | undefined;
  /** The JSON of each recorded answer's content, in order. */
  readonly answers: readonly string[];
  readonly model: ReplayModel;
}

function firstPrompt(events: readonly SessionEvent[]): string | undefined {
  const first = events.find((event) => event.type === "user_message");
  return first === undefined ? undefined : JSON.stringify((first.data as { content: unknown }).content);
}

function recordedAnswers(events: readonly SessionEvent[]): string[] {
  const answers: string[] = [];
  let pending = false;
  for (const event of events) {
    if (event.type === "model_response") pending = true;
    else if (event.type === "assistant_message" && pending) {
      answers.push(JSON.stringify((event.data as { content: unknown }).content));
      pending = false;
    }
  }
  return answers;
}

/**
 * A model that replays a recorded session and its sub-agent sessions at once, so an agent whose
 * sub-agents share its model replays offline: each request is answered from the recording of the
 * conversation it belongs to (the session whose first user message is the request's), the n-th
 * request of a conversation with its n-th recorded answer. Two conversations that start alike are
 * told apart by the answers they have had so far. A request no recording starts like is answered
 * by the first recording with answers left (the root first), as a plain `ReplayModel` would.
 */
export class ReplayTreeModel implements Model {
  readonly specificationVersion: ReplayModel["specificationVersion"];
  readonly provider: string;
  readonly modelId: string;
  readonly #recordings: readonly Recording[];

  constructor(tree: readonly TreeSession[]) {
    this.#recordings = tree.map((session) => ({
      path: session.path,
      prompt: firstPrompt(session.events),
      answers: recordedAnswers(session.events),
      model: new ReplayModel(session.events),
    }));
    const root = this.#recordings[0]?.model ?? new ReplayModel([]);
    this.specificationVersion = root.specificationVersion;
    this.provider = root.provider;
    this.modelId = root.modelId;
  }

  /** How many requests were answered. */
  get answered(): number {
    return this.#recordings.reduce((sum, recording) => sum + recording.model.requests.length, 0);
  }

  /** How many recorded answers were not asked for. */
  unusedResponses(): number {
    return this.#recordings.reduce((sum, recording) => sum + recording.model.unusedResponses(), 0);
  }

  #recordingFor(request: ModelRequest): Recording {
    const left = (recording: Recording) => recording.model.unusedResponses() > 0;
    const userMessage = request.messages.find((message) => message.role === "user");
    const prompt = userMessage === undefined ? undefined : JSON.stringify(userMessage.content);
    const sofar = request.messages
      .filter((message) => message.role === "assistant")
      .map((message) => JSON.stringify(message.content));
    const alike = this.#recordings.filter((recording) => recording.prompt === prompt && left(recording));
    const onTrack = alike.find(
      (recording) =>
        recording.model.requests.length === sofar.length &&
        sofar.every((answer, index) => recording.answers[index] === answer),
    );
    const chosen = onTrack ?? alike[0] ?? this.#recordings.find(left);
    if (chosen === undefined) {
      throw new UnexpectedModelCallError({
        message: `ReplayTreeModel: no recorded answer is left for this request (${this.answered} answered)`,
      });
    }
    return chosen;
  }

  async doGenerate(request: ModelRequest): Promise<ModelResponse> {
    return this.#recordingFor(request).model.doGenerate(request);
  }

  async *doStream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    yield* this.#recordingFor(request).model.doStream(request);
  }
}
