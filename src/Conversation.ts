/**
 * A conversation: the ordered list of messages a task serves from `get_messages`.
 *
 * Read untrusted JSON with {@link decode} (strict: an unknown block type is an error) or
 * {@link decodeLenient} (what a client does with a server's `/messages`: blocks of unknown types are
 * skipped and reported). Both return `Either` with a tagged error that says where the input went
 * wrong.
 *
 * @example
 * ```ts
 * import { Conversation } from "openreward-effect"
 * import * as Either from "effect/Either"
 *
 * const result = Conversation.decode([
 *   { role: "user", blocks: [{ type: "text", text: "My order hasn't arrived." }] },
 *   { role: "assistant", blocks: [{ type: "tool_result", tool_call_id: "tc_1", blocks: [] }] }
 * ])
 * if (Either.isLeft(result)) console.log(result.left.message)
 * // canonical: message 1, block 0: a "tool_result" block is not valid in an "assistant" message: ...
 * ```
 *
 * ```text output
 * canonical: message 1, block 0: a "tool_result" block is not valid in an "assistant" message: reasoning and tool_call blocks belong in assistant turns, tool_result blocks in user turns
 * ```
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as Block from "./Block.js"
import type * as Codec from "./Codec.js"
import * as ConversionError from "./ConversionError.js"
import * as internal from "./internal/decodeCanonical.js"
import * as WireInput from "./internal/wireInput.js"
import * as Message from "./Message.js"

/**
 * @category schemas
 * @since 0.1.0
 */
export const Conversation = Schema.Array(Message.Message).annotations({ identifier: "Conversation" })

/**
 * @category models
 * @since 0.1.0
 */
export type Conversation = ReadonlyArray<Message.Message>

/**
 * The wire form of a conversation: a JSON array of `{role, blocks, detail}` messages.
 *
 * @category models
 * @since 0.1.0
 */
export type Encoded = ReadonlyArray<Message.Encoded>

/**
 * A block that {@link decodeLenient} left out because its type is unknown.
 *
 * @category models
 * @since 0.1.0
 */
export interface SkippedBlock extends internal.SkippedBlock {}

/**
 * The result of {@link decodeLenient}.
 *
 * @category models
 * @since 0.1.0
 */
export interface LenientResult {
  readonly conversation: Conversation
  readonly skipped: ReadonlyArray<SkippedBlock>
}

/**
 * Strictly decode canonical wire JSON: unknown block types, unexpected keys, misplaced blocks and
 * wrong field types are errors. Omitted defaults (`detail`, `signature`, `is_error`) are filled in.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = (input: unknown): Either.Either<Conversation, ConversionError.ValidationError> =>
  Either.map(internal.decodeStrict(input), (r) => r.conversation)

/**
 * Decode canonical wire JSON as a client reads a server's `/messages`: blocks of unknown types
 * (from a newer server) are skipped and listed in `skipped`, and unexpected keys are ignored. Known
 * blocks are still validated, placement included.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeLenient = (input: unknown): Either.Either<LenientResult, ConversionError.ValidationError> =>
  internal.decodeLenient(input)

/**
 * Strictly decode one message; `index` is used in error locations.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeMessage = (
  input: unknown,
  index = 0
): Either.Either<Message.Message, ConversionError.ValidationError> =>
  WireInput.total("canonical", () => internal.decodeMessage(input, index, { lenient: false }, []))

/**
 * Check block placement for messages that were not decoded (built with a cast, say). Messages built
 * with the constructors in {@link Message} are correct by type.
 *
 * @category validation
 * @since 0.1.0
 */
export const validate = (conversation: Conversation): Either.Either<Conversation, ConversionError.MisplacedBlock> => {
  const error = internal.checkPlacement(conversation)
  return error === undefined ? Either.right(conversation) : Either.left(error)
}

/**
 * The canonical wire JSON of a conversation, keys in the reference SDK's order and every default
 * present. It writes the values as they are typed (no Schema encode runs): `detail` and tool-call
 * `input` objects are shared with the conversation, not copied.
 *
 * @category encoding
 * @since 0.1.0
 */
export const encode = (conversation: Conversation): Encoded => internal.encodeConversation(conversation)

/**
 * The canonical wire JSON as a Schema that only validates: the encoded side of
 * `Conversation.Conversation`, what {@link codec} reads and writes.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Input: Schema.Schema<Encoded> = Schema.encodedSchema(Conversation)

/**
 * The canonical wire JSON as a {@link Codec.Codec}, named `canonical`: {@link decode} (strict) and
 * {@link encode} (which cannot fail). It composes with the provider codecs like any other
 * (`Codec.compose(OpenAiFormat.codec, Conversation.codec)` reads an OpenAI transcript into
 * canonical wire JSON).
 *
 * @category codecs
 * @since 0.2.0
 */
export const codec: Codec.Codec<Encoded, {}, {}, never, ConversionError.ValidationError, Encoded, "canonical"> = {
  name: "canonical",
  input: Input,
  encode: (conversation) => Either.right(encode(conversation)),
  decode: (input) => decode(input)
}

/**
 * Every block of the conversation, in order (tool-result content not included).
 *
 * @category getters
 * @since 0.1.0
 */
export const blocks = (conversation: Conversation): ReadonlyArray<Block.Block> =>
  conversation.flatMap((m): ReadonlyArray<Block.Block> => m.blocks)

/**
 * Append turns to a conversation, as a harness does after each model answer: the assistant turn
 * (`ModelResponse.message`), then the user turn holding the tool results. Each appended turn is
 * checked: its blocks must be placed as its role allows (`MisplacedBlock`), every tool result must
 * answer a tool call of the assistant turn right before it, once (`UnmatchedToolResult`), and a
 * turn after an assistant turn with tool calls must answer all of them (`UnansweredToolCall`), as
 * the providers require of a request. The conversation given is not changed.
 *
 * @example
 * ```ts
 * import { Block, Conversation, Message } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as assert from "node:assert"
 *
 * const start = [Message.user("Where is order 4411?")]
 * const next = Conversation.append(
 *   start,
 *   Message.assistant([Block.toolCall("tc_1", "lookup_order", { id: "4411" })]),
 *   Message.user([Block.toolResult("tc_1", "stalled at hub")])
 * )
 * assert.strictEqual(Either.getOrThrow(next).length, 3)
 *
 * const unanswered = Conversation.append(start, Message.assistant([Block.toolCall("tc_1", "lookup_order")]), Message.user("hi"))
 * assert.strictEqual(Either.isLeft(unanswered) && unanswered.left._tag, "UnansweredToolCall")
 * ```
 *
 * @category combinators
 * @since 0.2.0
 */
export const append = (
  conversation: Conversation,
  ...messages: ReadonlyArray<Message.Message>
): Either.Either<Conversation, ConversionError.AppendError> => {
  const out = conversation.slice()
  for (const message of messages) {
    const messageIndex = out.length
    for (const [blockIndex, block] of (message.blocks as ReadonlyArray<Block.Block>).entries()) {
      if (!Message.isAllowed(message.role, block.type)) {
        return Either.left(
          new ConversionError.MisplacedBlock({
            path: [messageIndex, "blocks", blockIndex],
            messageIndex,
            blockIndex,
            role: message.role,
            blockType: block.type
          })
        )
      }
    }
    const previous = out[out.length - 1]
    const calls = previous?.role === "assistant"
      ? previous.blocks.flatMap((b) => b.type === "tool_call" ? [b.id] : [])
      : []
    const answered = new Set<string>()
    for (const [blockIndex, block] of (message.blocks as ReadonlyArray<Block.Block>).entries()) {
      if (block.type !== "tool_result") continue
      const id = block.tool_call_id
      if (!calls.includes(id) || answered.has(id)) {
        return Either.left(
          new ConversionError.UnmatchedToolResult({
            format: "canonical",
            path: [messageIndex, "blocks", blockIndex],
            messageIndex,
            blockIndex,
            toolCallId: id,
            reason: answered.has(id)
              ? "the call was already answered in this turn"
              : calls.length === 0
              ? "the turn before it is not an assistant turn with tool calls"
              : `the assistant turn before it calls ${calls.map((c) => JSON.stringify(c)).join(", ")}`
          })
        )
      }
      answered.add(id)
    }
    const missing = calls.filter((c) => !answered.has(c))
    if (missing.length > 0) {
      return Either.left(
        new ConversionError.UnansweredToolCall({
          path: [messageIndex],
          messageIndex,
          toolCallIds: missing,
          reason: `the turn after the assistant's tool calls does not answer ${
            missing.map((c) => JSON.stringify(c)).join(", ")
          }: add a tool_result block for each`
        })
      )
    }
    out.push(message)
  }
  return Either.right(out)
}
