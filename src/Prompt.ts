/**
 * The `/prompt` surface: a task prompt as plain text and image blocks, and how it relates to a
 * conversation.
 *
 * - {@link flatten} renders a conversation to prompt blocks exactly as the reference server's
 *   `/prompt` does for an environment that only implements `get_messages`: a `[role]` header block
 *   before each message, reasoning as `<think>…</think>`, tool calls as `[tool_call name] {args}`, tool
 *   results as a `[tool_result]` (or `[tool_result (error)]`) header followed by their content.
 *   Provider blocks, which the reference does not have, render as `[provider <provider> <kind>]
 *   {item}` (the item written as a tool call's arguments are), with `detail` `{type: "provider",
 *   provider, kind}`.
 *   Exactly one user message of plain text and image blocks flattens to its blocks verbatim.
 * - {@link toConversation} wraps a prompt as one user message, as `get_messages` does against a
 *   prompt-only environment or an old server.
 *
 * @example
 * ```ts
 * import { Message, Prompt } from "openreward-effect"
 *
 * const blocks = Prompt.flatten([Message.system("Be terse."), Message.user("Hi")])
 * console.log(blocks.map((b) => b.type === "text" ? b.text : "<image>"))
 * // ["[system]", "Be terse.", "[user]", "Hi"]
 * ```
 *
 * ```text output
 * [ '[system]', 'Be terse.', '[user]', 'Hi' ]
 * ```
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Block from "./Block.js"
import type * as Codec from "./Codec.js"
import type * as Conversation from "./Conversation.js"
import * as ConversionError from "./ConversionError.js"
import * as Canonical from "./internal/decodeCanonical.js"
import { fromParseError } from "./internal/decodeCanonical.js"
import * as Decoder from "./internal/decoder.js"
import * as ProviderContent from "./internal/providerContent.js"
import { dumps } from "./internal/pythonJson.js"
import * as Input from "./internal/wireInput.js"
import * as Message from "./Message.js"

/**
 * Prompt blocks: what `/prompt` serves.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Prompt = Schema.Array(Block.ContentBlock).annotations({ identifier: "Prompt" })

/**
 * @category models
 * @since 0.1.0
 */
export type Prompt = ReadonlyArray<Block.ContentBlock>

const flattenBlock = (block: Block.Block, out: Array<Block.ContentBlock>): void => {
  switch (block.type) {
    case "text":
    case "image":
      out.push(block)
      return
    case "reasoning":
      out.push(Block.text(`<think>${block.text}</think>`, { detail: { type: "reasoning" } }))
      return
    case "tool_call":
      out.push(
        Block.text(`[tool_call ${block.name}] ${dumps(block.input)}`, { detail: { type: "tool_call", id: block.id } })
      )
      return
    case "tool_result":
      out.push(
        Block.text(block.is_error ? "[tool_result (error)]" : "[tool_result]", {
          detail: { type: "tool_result", tool_call_id: block.tool_call_id }
        })
      )
      for (const inner of block.blocks) out.push(inner)
      return
    case "provider":
      out.push(ProviderContent.render(block))
      return
  }
}

/**
 * Is this conversation exactly one user message of text and image blocks?
 *
 * @category guards
 * @since 0.1.0
 */
export const isPlain = (conversation: Conversation.Conversation): boolean => {
  if (conversation.length !== 1) return false
  const [message] = conversation
  return message !== undefined && message.role === "user" && message.blocks.every(Block.isContentBlock)
}

/**
 * Render a conversation to prompt blocks, as the reference server's `/prompt` does. Total: every
 * conversation has a prompt.
 *
 * @category conversions
 * @since 0.1.0
 */
export const flatten = (conversation: Conversation.Conversation): Prompt => {
  if (isPlain(conversation)) return conversation[0]!.blocks as Prompt
  const out: Array<Block.ContentBlock> = []
  for (const message of conversation) flattenInto(message, out)
  return out
}

const flattenInto = (message: Message.Message, out: Array<Block.ContentBlock>): void => {
  out.push(Block.text(`[${message.role}]`, { detail: { role: message.role } }))
  for (const block of message.blocks) flattenBlock(block, out)
}

/**
 * Render one message as {@link flatten} renders each message of a conversation: its `[role]`
 * header block, then its blocks (reasoning as `<think>…</think>`, tool calls as
 * `[tool_call name] {args}`, tool results as a header and their content). Unlike {@link flatten},
 * a plain user message keeps its header. This is how the judges (`openreward-effect/Judge`) show a
 * transcript, as the reference's judging toolkit does.
 *
 * @example
 * ```ts
 * import { Block, Message, Prompt } from "openreward-effect"
 *
 * const blocks = Prompt.flattenMessage(
 *   Message.assistant([Block.reasoning("Check the order."), Block.toolCall("c1", "lookup", { id: 7 })])
 * )
 * console.log(blocks.map((b) => b.type === "text" ? b.text : "<image>"))
 * ```
 *
 * ```text output
 * [
 *   '[assistant]',
 *   '<think>Check the order.</think>',
 *   '[tool_call lookup] {"id": 7}'
 * ]
 * ```
 *
 * @category conversions
 * @since 0.2.0
 */
export const flattenMessage = (message: Message.Message): Prompt => {
  const out: Array<Block.ContentBlock> = []
  flattenInto(message, out)
  return out
}

/**
 * Wrap prompt blocks as one user message: the conversation a prompt-only environment serves.
 *
 * @category conversions
 * @since 0.1.0
 */
export const toConversation = (prompt: Prompt): readonly [Message.UserMessage] => [Message.user(prompt)]

/**
 * The result of {@link decodeLenient}.
 *
 * @category models
 * @since 0.1.0
 */
export interface LenientResult {
  readonly prompt: Prompt
  readonly skipped: ReadonlyArray<{ readonly index: number; readonly blockType: string }>
}

const decodeStrict = Decoder.make({
  format: "canonical",
  issue: "first",
  depthLimit: false,
  target: (input: unknown): Decoder.Target<Prompt> => ({ shape: Canonical.strictPrompt, value: input, path: [] }),
  convert: (raw): Either.Either<Prompt, ConversionError.MalformedInput> => {
    const prompt: Array<Block.ContentBlock> = new Array(raw.length)
    for (let i = 0; i < raw.length; i++) prompt[i] = Canonical.contentBlock(raw[i]! as unknown as Raw)
    return Either.right(prompt)
  }
})

type Raw = { readonly [key: string]: unknown }

/**
 * Strictly decode prompt blocks (a JSON array of text and image blocks).
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = (input: unknown): Either.Either<Prompt, ConversionError.MalformedInput> => decodeStrict(input)

/**
 * Decode prompt blocks as a client reads `/prompt`: blocks of other types are skipped and reported.
 * An entry that is not a block object with a string `type` is a `MalformedInput`: it is not a block of
 * some newer type, and skipping it would hide a broken answer.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeLenient = (input: unknown): Either.Either<LenientResult, ConversionError.MalformedInput> =>
  Input.total("canonical", () => decodeLenientUnguarded(input))

const decodeLenientUnguarded = (input: unknown): Either.Either<LenientResult, ConversionError.MalformedInput> => {
  if (!Array.isArray(input)) {
    return Either.left(
      new ConversionError.MalformedInput({ format: "canonical", path: [], reason: "expected an array of blocks" })
    )
  }
  const prompt: Array<Block.ContentBlock> = []
  const skipped: Array<{ index: number; blockType: string }> = []
  for (let i = 0; i < input.length; i++) {
    const raw: unknown = input[i]
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      return Either.left(
        new ConversionError.MalformedInput({ format: "canonical", path: [i], reason: "expected a block object" })
      )
    }
    const type = (raw as { type?: unknown }).type
    if (typeof type !== "string") {
      return Either.left(
        new ConversionError.MalformedInput({
          format: "canonical",
          path: [i, "type"],
          reason: "expected the block's type, a string"
        })
      )
    }
    if (type !== "text" && type !== "image") {
      skipped.push({ index: i, blockType: type })
      continue
    }
    if (Canonical.lenientContent.is(raw)) {
      prompt.push(Canonical.contentBlock(raw as Raw))
      continue
    }
    const block = Canonical.lenientContent.decode(raw)
    if (Either.isLeft(block)) return Either.left(fromParseError(block.left, [i], undefined))
    prompt.push(block.right)
  }
  return Either.right({ prompt, skipped })
}

/**
 * The wire JSON of prompt blocks (every default present, reference key order).
 *
 * @category encoding
 * @since 0.1.0
 */
export const encode = (prompt: Prompt): Encoded => prompt.map(Canonical.encodeContentBlock)

/**
 * The wire JSON of prompt blocks.
 *
 * @category models
 * @since 0.2.0
 */
export type Encoded = ReadonlyArray<typeof Block.ContentBlock.Encoded>

/**
 * The `/prompt` flattening as a `Codec.Encoder`, named `prompt`: a conversation {@link flatten}ed
 * and {@link encode}d (which cannot fail). It is a pipeline's target like any other
 * (`Codec.compose(AnthropicFormat.codec, Prompt.encoder)`); there is no way back.
 *
 * @category codecs
 * @since 0.2.0
 */
export const encoder: Codec.Encoder<Encoded, {}, never, "prompt"> = {
  name: "prompt",
  encode: (conversation) => Either.right(encode(flatten(conversation)))
}
