/**
 * What each format's encoder leaves out, by the rules its page documents ("What a round trip
 * loses", docs/formats/*.md): a pass over the canonical conversation, run only when a caller asks
 * (`onLoss`) and only once the encode has succeeded (report.ts `encoding`). Each rule reports at the
 * path of what is lost in the canonical conversation.
 *
 * The losses that only rearrange (order of blocks, a run of system messages joined, tool results
 * first) lose nothing and are not reported; what they would report is content, and content is kept.
 *
 * @internal
 */
import type * as Block from "../Block.js"
import type * as Conversation from "../Conversation.js"
import type * as ConversionError from "../ConversionError.js"
import type * as Json from "../Json.js"
import { itemDetail } from "./openaiResponses/encode.js"
import { detailLosses, encodeLoss, errorFlagLosses, type Kept, type Report } from "./report.js"

type Rules<O> = (conversation: Conversation.Conversation, options: O | undefined, report: Report) => void

/** Every block of every message with its path (tool-call blocks only: the call's own fields). */
const eachBlock = (
  conversation: Conversation.Conversation,
  f: (block: Block.Block, i: number, j: number) => void
): void => {
  for (let i = 0; i < conversation.length; i++) {
    const blocks: ReadonlyArray<Block.Block> = conversation[i]!.blocks
    for (let j = 0; j < blocks.length; j++) f(blocks[j]!, i, j)
  }
}

/** A reasoning block's signature, for a target that sends reasoning text only. */
const signatureLosses = (
  format: ConversionError.FormatName,
  conversation: Conversation.Conversation,
  report: Report,
  reason: string
): void =>
  eachBlock(conversation, (block, i, j) => {
    if (block.type === "reasoning" && block.signature !== null && block.signature !== "") {
      report(encodeLoss(format, [i, "blocks", j, "signature"], "signature", reason))
    }
  })

/** The Chat Completions formats (`openai`, `openrouter`): docs/formats/openai.md, losses 1, 2, 4. */
export const chat = (format: ConversionError.FormatName): Rules<{
  readonly reasoningField?: "reasoning_content" | "reasoning" | "omit" | undefined
}> =>
(conversation, options, report) => {
  detailLosses(format, conversation, report)
  if (options?.reasoningField === "omit") {
    eachBlock(conversation, (block, i, j) => {
      if (block.type === "reasoning" && block.text !== "") {
        report(
          encodeLoss(format, [i, "blocks", j, "text"], "reasoning", "reasoningField is \"omit\": no reasoning is sent")
        )
      }
    })
  }
  signatureLosses(format, conversation, report, "a Chat Completions message has no place for a reasoning signature")
  errorFlagLosses(
    format,
    conversation,
    report,
    "a Chat Completions tool message has no error flag (put the error in the text)"
  )
}

/** Anthropic: docs/formats/anthropic.md, loss 1 (a `detail`). */
export const anthropic: Rules<unknown> = (conversation, _options, report) =>
  detailLosses("anthropic", conversation, report)

/**
 * Responses: docs/formats/openai-responses.md, losses 1, 3 and 6 (a block's `detail.openai` is kept;
 * a reasoning block without an item id is left out or sent as text, as `reasoningWithoutId` says).
 */
export const openaiResponses: Rules<{ readonly reasoningWithoutId?: "fail" | "omit" | "text" | undefined }> = (
  conversation,
  options,
  report
) => {
  const without = options?.reasoningWithoutId
  if (without === "omit" || without === "text") {
    eachBlock(conversation, (block, i, j) => {
      if (block.type !== "reasoning" || itemDetail(block.detail)?.id !== undefined) return
      if (without === "omit") {
        report(
          encodeLoss(
            "openai-responses",
            [i, "blocks", j],
            "reasoning",
            "reasoningWithoutId is \"omit\": a reasoning block without a Responses item id is not sent"
          )
        )
      } else if (block.signature !== null && block.signature !== "") {
        report(
          encodeLoss(
            "openai-responses",
            [i, "blocks", j, "signature"],
            "signature",
            "reasoningWithoutId is \"text\": the reasoning goes as text, without its signature"
          )
        )
      }
    })
  }
  const kept: Kept = (detail: Json.JsonObject, where) =>
    where === "block" && Object.hasOwn(detail, "openai") ? ["openai"] : []
  detailLosses("openai-responses", conversation, report, kept)
  errorFlagLosses(
    "openai-responses",
    conversation,
    report,
    "the Responses API has no error flag on a function_call_output (put the error in the text)"
  )
}

/** Gemini: docs/formats/google.md, losses 1, 4 and 5. */
export const google: Rules<{
  readonly toolErrors?: "output" | "error" | undefined
  readonly toolCallIds?: boolean | undefined
}> = (conversation, options, report) => {
  detailLosses("google", conversation, report)
  if (options?.toolErrors !== "error") {
    errorFlagLosses(
      "google",
      conversation,
      report,
      "toolErrors is \"output\": the error text goes under response.output, without its flag (toolErrors: \"error\" keeps it)"
    )
  }
  if (options?.toolCallIds !== true) {
    eachBlock(conversation, (block, i, j) => {
      if (block.type === "tool_call" || block.type === "tool_result") {
        const field = block.type === "tool_call" ? "id" : "tool_call_id"
        report(
          encodeLoss(
            "google",
            [i, "blocks", j, field],
            field,
            "Gemini pairs calls and responses by name without toolCallIds (toolCallIds: true sends the ids)"
          )
        )
      }
    })
  }
}

/**
 * ShareGPT: docs/formats/sharegpt.md, losses: a `detail`, the error flag, tool-call ids,
 * reasoning left out (`reasoning: "omit"`) and provider blocks left out (`providerContent: "omit"`).
 */
export const sharegpt: Rules<{
  readonly reasoning?: "error" | "omit" | undefined
  readonly providerContent?: "error" | "omit" | "text" | undefined
}> = (
  conversation,
  options,
  report
) => {
  detailLosses("sharegpt", conversation, report)
  errorFlagLosses("sharegpt", conversation, report, "an observation turn has no error flag (put the error in the text)")
  eachBlock(conversation, (block, i, j) => {
    if (block.type === "tool_call" || block.type === "tool_result") {
      const field = block.type === "tool_call" ? "id" : "tool_call_id"
      report(
        encodeLoss(
          "sharegpt",
          [i, "blocks", j, field],
          field,
          "ShareGPT has no tool-call ids: an observation answers the earliest call not answered yet"
        )
      )
    } else if (block.type === "reasoning" && options?.reasoning === "omit") {
      report(encodeLoss("sharegpt", [i, "blocks", j], "reasoning", "reasoning is \"omit\": a turn has no place for it"))
    } else if (block.type === "provider" && options?.providerContent === "omit") {
      report(
        encodeLoss(
          "sharegpt",
          [i, "blocks", j],
          "provider",
          "providerContent is \"omit\": another provider's block is not sent"
        )
      )
    }
  })
}
