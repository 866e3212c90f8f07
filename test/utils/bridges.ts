/**
 * Shared by the toolkit-bridge tests (EffectAi, AiSdk): arbitrary canonical conversations made
 * encodable by both bridges, and a small environment served on loopback for the toolkit tests.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Arbitrary from "effect/Arbitrary"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { createServer } from "node:http"
import { Block, Conversation, Message } from "openreward-effect"
import * as Environment from "openreward-effect/Environment"
import * as Server from "openreward-effect/Server"
import * as Tool from "openreward-effect/Tool"

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64")

/** The conversation without its provider blocks (which neither bridge nor the reference's formats hold). */
export const withoutProviderBlocks = (conversation: Conversation.Conversation): Conversation.Conversation =>
  conversation.map((m) =>
    ({ ...m, blocks: (m.blocks as ReadonlyArray<Block.Block>).filter((b) => b.type !== "provider") }) as Message.Message
  )

const fixImage = <B extends Block.Block>(block: B): B =>
  block.type === "image"
    ? {
      ...block,
      data: base64(block.data),
      mimeType: block.mimeType.startsWith("image/") ? block.mimeType : "image/png"
    }
    : block

/**
 * Every arbitrary conversation, changed only where a bridge must refuse it: image data becomes
 * canonical base64 of an `image/*` type, system images become text, a tool result with no call before it gets one
 * (an assistant turn inserted just before its user turn), and provider blocks are left out.
 */
export const encodable = Arbitrary.make(Conversation.Conversation).map((conversation): Conversation.Conversation => {
  const seen = new Set<string>()
  return withoutProviderBlocks(conversation).flatMap((m): ReadonlyArray<Message.Message> => {
    switch (m.role) {
      case "system":
        return [{
          ...m,
          blocks: m.blocks.map((b) => b.type === "image" ? Block.text(b.mimeType, { detail: b.detail }) : b)
        }]
      case "assistant":
        for (const b of m.blocks) if (b.type === "tool_call") seen.add(b.id)
        return [{ ...m, blocks: m.blocks.map(fixImage) }]
      case "user": {
        const missing = m.blocks.flatMap((b) =>
          b.type === "tool_result" && !seen.has(b.tool_call_id) ? [b.tool_call_id] : []
        )
        for (const id of missing) seen.add(id)
        const user: Message.UserMessage = {
          ...m,
          blocks: m.blocks.map((b) => b.type === "tool_result" ? { ...b, blocks: b.blocks.map(fixImage) } : fixImage(b))
        }
        return missing.length === 0
          ? [user]
          : [Message.assistant([...new Set(missing)].map((id) => Block.toolCall(id, "lookup"))), user]
      }
    }
  })
})

/** A support task with one tool that pays 1 when the reply names the order. */
export const Support = Environment.make({
  name: "Support",
  splits: ["train"],
  tasks: { train: [{ order: "4411" }] },
  messages: ({ task }) => [
    Message.system("You are a support agent for Acme."),
    Message.user(`My order #${task.order} hasn't arrived.`)
  ],
  tools: [
    Tool.make("lookup_order", {
      description: "Look up an order.",
      input: Schema.Struct({ id: Schema.String }),
      handler: ({ id }) => Tool.output(id === "4411" ? "stalled at the hub" : "no such order")
    }),
    Tool.make("reply", {
      description: "Reply to the customer.",
      input: Schema.Struct({ text: Schema.String }),
      handler: ({ text }) => Tool.output("sent", { reward: text.includes("4411") ? 1 : 0, finished: true })
    })
  ]
})

/** The environment served on 127.0.0.1, an ephemeral port. */
export const ServerLive = Server.layer([Support]).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)
