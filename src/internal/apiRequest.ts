/**
 * Building provider requests whose messages and tools match (see `ApiRequest`). Each API encodes
 * with its format, after checks for what that API would reject and the format lets through; the
 * checks are what make the narrower request types true, so the casts below are checked by them.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as AnthropicFormat from "../AnthropicFormat.js"
import type * as ApiRequest from "../ApiRequest.js"
import type * as Conversation from "../Conversation.js"
import * as ConversionError from "../ConversionError.js"
import * as GoogleFormat from "../GoogleFormat.js"
import type * as Json from "../Json.js"
import * as OpenAiFormat from "../OpenAiFormat.js"
import * as OpenAiResponsesFormat from "../OpenAiResponsesFormat.js"
import * as OpenRouterFormat from "../OpenRouterFormat.js"
import type * as Protocol from "../Protocol.js"
import * as ToolFormat from "../ToolFormat.js"

export const apis: ReadonlyArray<ApiRequest.Api> = [
  "openai-chat",
  "openai-responses",
  "anthropic",
  "google",
  "openrouter"
]

const unsupported = (
  format: "openai" | "openrouter" | "anthropic",
  path: ConversionError.Path,
  blockType: string,
  reason: string
) =>
  new ConversionError.UnsupportedBlock({
    format,
    path,
    messageIndex: path[0] as number,
    blockIndex: path[2] as number,
    blockType,
    reason
  })

/** Chat Completions takes text only in system and assistant messages. */
const checkChat = (
  format: "openai" | "openrouter",
  conversation: Conversation.Conversation
): ConversionError.UnsupportedBlock | undefined => {
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    if (message.role === "user") continue
    const j = message.blocks.findIndex((b) => b.type === "image")
    if (j !== -1) {
      return unsupported(
        format,
        [i, "blocks", j],
        "image",
        `Chat Completions takes images in user messages only, not in ${message.role} messages`
      )
    }
  }
  return undefined
}

const anthropicMediaTypes: ReadonlySet<string> = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"])

/** The Messages API takes four image media types. */
const checkAnthropic = (conversation: Conversation.Conversation): ConversionError.UnsupportedBlock | undefined => {
  const reason = (mimeType: string) =>
    `the Messages API takes image/jpeg, image/png, image/gif and image/webp images, not ${JSON.stringify(mimeType)}`
  for (let i = 0; i < conversation.length; i++) {
    const blocks = conversation[i]!.blocks
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!
      if (block.type === "image" && !anthropicMediaTypes.has(block.mimeType)) {
        return unsupported("anthropic", [i, "blocks", j], "image", reason(block.mimeType))
      }
      if (block.type === "tool_result") {
        const k = block.blocks.findIndex((b) => b.type === "image" && !anthropicMediaTypes.has(b.mimeType))
        const inner = block.blocks[k]
        if (inner?.type === "image") {
          return unsupported("anthropic", [i, "blocks", j, "blocks", k], "image", reason(inner.mimeType))
        }
      }
    }
  }
  return undefined
}

const emptyObjectSchema: Json.JsonObject = { type: "object", properties: {} }

const chatTools = (
  tools: ReadonlyArray<Protocol.ToolSpec>,
  options: ToolFormat.Options
): Either.Either<Array<ApiRequest.ChatTool>, ConversionError.MalformedInput> =>
  Either.map(ToolFormat.convert(tools, "openai-compatible", options), (converted) =>
    converted.map((tool) => ({
      type: "function",
      function: {
        name: tool.function.name,
        description: tool.function.description,
        parameters: tool.function.parameters ?? emptyObjectSchema
      }
    })))

const toolOptions = (options: ToolFormat.Options | undefined): ToolFormat.Options =>
  options?.preservePropertyNames === undefined ? {} : { preservePropertyNames: options.preservePropertyNames }

const both = <A, B, E1, E2>(
  a: Either.Either<A, E1>,
  b: () => Either.Either<B, E2>
): Either.Either<readonly [A, B], E1 | E2> => Either.flatMap(a, (x) => Either.map(b(), (y) => [x, y] as const))

const makeChat = (
  format: "openai" | "openrouter",
  conversation: Conversation.Conversation,
  tools: ReadonlyArray<Protocol.ToolSpec>,
  options: ApiRequest.Options<"openai-chat"> & ApiRequest.Options<"openrouter"> | undefined
): Either.Either<ApiRequest.ChatRequest, ApiRequest.Error> => {
  const encoded = format === "openai"
    ? OpenAiFormat.encode(conversation, options)
    : OpenRouterFormat.encode(conversation, options)
  const checked = Either.flatMap(encoded, (messages) => {
    const error = checkChat(format, conversation)
    return error === undefined ? Either.right(messages) : Either.left(error)
  })
  return Either.map(
    both(checked, () => chatTools(tools, toolOptions(options))),
    ([messages, converted]) => ({
      messages: structuredClone(messages) as Array<ApiRequest.ChatMessage>,
      tools: converted
    })
  )
}

const makeResponses = (
  conversation: Conversation.Conversation,
  tools: ReadonlyArray<Protocol.ToolSpec>,
  options: ApiRequest.Options<"openai-responses"> | undefined
): Either.Either<ApiRequest.ResponsesRequest, ApiRequest.Error> =>
  Either.map(
    both(OpenAiResponsesFormat.encode(conversation, options), () =>
      ToolFormat.convert(tools, "openai", toolOptions(options))),
    ([input, converted]) => ({
      input: structuredClone(input) as ApiRequest.ResponsesRequest["input"],
      tools: converted.map((tool) => ({
        type: "function",
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        strict: false
      }))
    })
  )

const makeAnthropic = (
  conversation: Conversation.Conversation,
  tools: ReadonlyArray<Protocol.ToolSpec>,
  options: ApiRequest.Options<"anthropic"> | undefined
): Either.Either<ApiRequest.AnthropicRequest, ApiRequest.Error> => {
  const encoded = Either.flatMap(
    AnthropicFormat.encode(conversation, { ...options, unsignedReasoning: options?.unsignedReasoning ?? "fail" }),
    (wire) => {
      const error = checkAnthropic(conversation)
      return error === undefined ? Either.right(wire) : Either.left(error)
    }
  )
  const converted = (): Either.Either<Array<ApiRequest.AnthropicTool>, ConversionError.MalformedInput> =>
    Either.flatMap(ToolFormat.convert(tools, "anthropic", toolOptions(options)), (list) => {
      const out: Array<ApiRequest.AnthropicTool> = []
      for (const [index, tool] of list.entries()) {
        const schema = tool.input_schema
        if (schema["type"] !== undefined && schema["type"] !== "object") {
          return Either.left(
            new ConversionError.MalformedInput({
              format: "canonical",
              path: [index, "input_schema", "type"],
              reason: `the input schema of tool ${JSON.stringify(tool.name)} has type ${
                JSON.stringify(schema["type"])
              }; the Messages API takes object schemas only`
            })
          )
        }
        out.push({
          type: "custom",
          name: tool.name,
          description: tool.description,
          input_schema: { ...schema, type: "object" }
        })
      }
      return Either.right(out)
    })
  return Either.map(both(encoded, converted), ([wire, list]) => {
    const messages = structuredClone(wire.messages) as Array<ApiRequest.AnthropicMessage>
    const system = wire.system === null
      ? undefined
      : structuredClone(wire.system) as string | Array<ApiRequest.AnthropicText>
    return system === undefined ? { messages, tools: list } : { system, messages, tools: list }
  })
}

const makeGoogle = (
  conversation: Conversation.Conversation,
  tools: ReadonlyArray<Protocol.ToolSpec>,
  options: ApiRequest.Options<"google"> | undefined
): Either.Either<ApiRequest.GoogleRequest, ApiRequest.Error> =>
  Either.map(
    both(
      GoogleFormat.encode(conversation, { ...options, casing: "camel", systemInstruction: "string" }),
      () => ToolFormat.convert(tools, "google", toolOptions(options))
    ),
    ([wire, converted]) => {
      const declarations = converted.map((tool): ApiRequest.GoogleFunctionDeclaration =>
        tool.parameters === null
          ? { name: tool.name, description: tool.description }
          : { name: tool.name, description: tool.description, parametersJsonSchema: tool.parameters }
      )
      const contents = structuredClone(wire.contents) as ApiRequest.GoogleRequest["contents"]
      const config: ApiRequest.GoogleRequest["config"] = {
        ...(typeof wire.systemInstruction === "string" ? { systemInstruction: wire.systemInstruction } : {}),
        tools: declarations.length === 0 ? [] : [{ functionDeclarations: declarations }]
      }
      return { contents, config }
    }
  )

export const make = <A extends ApiRequest.Api>(
  api: A,
  conversation: Conversation.Conversation,
  tools: ReadonlyArray<Protocol.ToolSpec>,
  options?: ApiRequest.Options<A>
): Either.Either<ApiRequest.Request<A>, ApiRequest.Error> => {
  const any = options as never
  switch (api as ApiRequest.Api) {
    case "openai-chat":
      return makeChat("openai", conversation, tools, any) as never
    case "openrouter":
      return makeChat("openrouter", conversation, tools, any) as never
    case "openai-responses":
      return makeResponses(conversation, tools, any) as never
    case "anthropic":
      return makeAnthropic(conversation, tools, any) as never
    case "google":
      return makeGoogle(conversation, tools, any) as never
  }
}
