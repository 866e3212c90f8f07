/**
 * Provider blocks (`Block.ProviderBlock`) in one place: the decoding and encoding options every
 * format shares, the text a provider block renders as (`Prompt.flatten`, and encoders with
 * `providerContent: "text"`), and what an encoder does with a provider block that is not its own.
 *
 * @internal
 */
import * as Block from "../Block.js"
import type * as ConversionError from "../ConversionError.js"
import * as BlockError from "./blockError.js"
import { dumps } from "./pythonJson.js"

/**
 * What a decoder does with content its provider's API hosts and the canonical model has no neutral
 * form for: report it (`"refuse"`, an `UnsupportedContent` naming it) or keep it as a provider block
 * (`"keep"`).
 */
export type DecodePolicy = "refuse" | "keep"

/**
 * What an encoder does with a provider block another provider made: report it (`"error"`, an
 * `UnsupportedBlock`), leave it out (`"omit"`), or write the text {@link render} makes (`"text"`).
 * A provider block of the encoder's own provider is always written back as it is.
 */
export type EncodePolicy = "error" | "omit" | "text"

/** Is content kept (`providerContent: "keep"`)? */
export const keeps = (options: { readonly providerContent?: DecodePolicy | undefined } | undefined): boolean =>
  options?.providerContent === "keep"

/**
 * The text block a provider block renders as: `[provider <provider> <kind>] <item>`, the item as
 * Python's `json.dumps` writes it (as `Prompt.flatten` writes a tool call's input), with `detail`
 * `{type: "provider", provider, kind}`.
 */
export const render = (block: Block.ProviderBlock): Block.TextBlock =>
  Block.text(`[provider ${block.provider} ${block.kind}] ${dumps(block.item)}`, {
    detail: { type: "provider", provider: block.provider, kind: block.kind }
  })

/** What an encoder writes for a provider block of another provider. */
export type Foreign = { readonly _tag: "omit" } | { readonly _tag: "text"; readonly block: Block.TextBlock }

const omitted: Foreign = { _tag: "omit" }

/**
 * A provider block that `format` cannot write back (it is another provider's), under `policy`: an
 * `UnsupportedBlock` at `[messageIndex, "blocks", blockIndex]` (`"error"`, the default), nothing
 * (`"omit"`) or its text (`"text"`).
 */
export const foreign = (
  format: ConversionError.UnsupportedBlock["format"],
  block: Block.ProviderBlock,
  messageIndex: number,
  blockIndex: number,
  policy: EncodePolicy | undefined
): Foreign | ConversionError.UnsupportedBlock => {
  switch (policy) {
    case "omit":
      return omitted
    case "text":
      return { _tag: "text", block: render(block) }
    default:
      return BlockError.unsupported(
        format,
        messageIndex,
        blockIndex,
        "provider",
        `it is ${JSON.stringify(block.provider)} content (${JSON.stringify(block.kind)}), which only ${
          JSON.stringify(block.provider)
        } reads; set providerContent to "omit" to leave it out or "text" to send it as text`
      )
  }
}
