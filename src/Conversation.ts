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
 * // canonical: message 1, block 0: a "tool_result" block is not valid in a "assistant" message: ...
 * ```
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as Block from "./Block.js"
import type * as ConversionError from "./ConversionError.js"
import * as internal from "./internal/decodeCanonical.js"
import * as Input from "./internal/wireInput.js"
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
  Input.total(
    "canonical",
    () => Either.map(internal.decodeConversation(input, { lenient: false }), (r) => r.conversation)
  )

/**
 * Decode canonical wire JSON as a client reads a server's `/messages`: blocks of unknown types
 * (from a newer server) are skipped and listed in `skipped`, and unexpected keys are ignored. Known
 * blocks are still validated, placement included.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeLenient = (input: unknown): Either.Either<LenientResult, ConversionError.ValidationError> =>
  Input.total("canonical", () => internal.decodeConversation(input, { lenient: true }))

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
  Input.total("canonical", () => internal.decodeMessage(input, index, { lenient: false }, []))

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
 * Every block of the conversation, in order (tool-result content not included).
 *
 * @category getters
 * @since 0.1.0
 */
export const blocks = (conversation: Conversation): ReadonlyArray<Block.Block> =>
  conversation.flatMap((m): ReadonlyArray<Block.Block> => m.blocks)
