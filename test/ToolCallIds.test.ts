/**
 * Reused tool-call ids (tau-bench reuses 49 of 200): a result pairs with its call by position; an
 * encoder whose API needs unique ids fails with a typed error, or, with `reusedToolCallIds:
 * "rename"`, renames every reused call and the results paired with it, consistently; Gemini never
 * names a function response after the wrong call.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as AnthropicFormat from "openreward-effect/AnthropicFormat"
import * as Block from "openreward-effect/Block"
import type * as Conversation from "openreward-effect/Conversation"
import * as GoogleFormat from "openreward-effect/GoogleFormat"
import * as Message from "openreward-effect/Message"
import * as OpenAiFormat from "openreward-effect/OpenAiFormat"
import { unique } from "../src/internal/toolCallIds.js"

const trajectory: Conversation.Conversation = [
  Message.user([Block.text("Book it")]),
  Message.assistant([Block.toolCall("c1", "find_flight", { to: "SFO" })]),
  Message.user([Block.toolResult("c1", "UA 12")]),
  Message.assistant([Block.toolCall("c1", "book", { flight: "UA 12" })]),
  Message.user([Block.toolResult("c1", "booked")]),
  // two parallel calls with the same id, answered in order
  Message.assistant([Block.toolCall("c1", "email", {}), Block.toolCall("c1", "sms", {})]),
  Message.user([Block.toolResult("c1", "sent"), Block.toolResult("c1", "texted")])
]

const ids = (conversation: Conversation.Conversation) =>
  conversation.flatMap((m) =>
    (m.blocks as ReadonlyArray<Block.Block>).flatMap((b) =>
      b.type === "tool_call" ? [`call ${b.id} ${b.name}`] : b.type === "tool_result" ? [`result ${b.tool_call_id}`] : []
    )
  )

describe("reused tool-call ids", () => {
  it("unique: reused calls renamed, each result after the call it pairs with by position", () => {
    assert.deepStrictEqual(ids(unique(trajectory)), [
      "call c1 find_flight",
      "result c1",
      "call c1~2 book",
      "result c1~2",
      "call c1~3 email",
      "call c1~4 sms",
      "result c1~3",
      "result c1~4"
    ])
    // nothing reused: the same conversation
    const once = trajectory.slice(0, 3)
    assert.strictEqual(unique(once), once)
  })

  it("a new name never collides with an id the conversation has", () => {
    const taken = [
      Message.assistant([Block.toolCall("a", "f", {}), Block.toolCall("a~2", "g", {}), Block.toolCall("a", "h", {})]),
      Message.user([Block.toolResult("a", "1"), Block.toolResult("a~2", "2"), Block.toolResult("a", "3")])
    ]
    assert.deepStrictEqual(ids(unique(taken)), [
      "call a f",
      "call a~2 g",
      "call a~3 h",
      "result a",
      "result a~2",
      "result a~3"
    ])
  })

  it("anthropic: a typed error at the second call by default, whose hint works", () => {
    const encoded = AnthropicFormat.encode(trajectory)
    if (Either.isRight(encoded)) return assert.fail("reused ids must not go out")
    assert.strictEqual(encoded.left._tag, "UnsupportedBlock")
    assert.deepStrictEqual(encoded.left.path, [3, "blocks", 0])
    assert.include(encoded.left.message, `set reusedToolCallIds to "rename"`)
    const renamed = Either.getOrThrow(AnthropicFormat.encode(trajectory, { reusedToolCallIds: "rename" }))
    const sent = renamed.messages.flatMap((m) =>
      typeof m.content === "string" ?
        [] :
        m.content.flatMap((b: any) =>
          b.type === "tool_use" ? [b.id] : b.type === "tool_result" ? [`>${b.tool_use_id}`] : []
        )
    )
    assert.deepStrictEqual(sent, ["c1", ">c1", "c1~2", ">c1~2", "c1~3", "c1~4", ">c1~3", ">c1~4"])
  })

  it("google: each function response is named after the call it pairs with, ids sent only when unique or renamed", () => {
    const request = Either.getOrThrow(GoogleFormat.encode(trajectory))
    const names = request.contents.flatMap((c) =>
      c.parts.flatMap((p: any) =>
        p.function_call
          ? [`call ${p.function_call.name}`]
          : p.function_response
          ? [`response ${p.function_response.name}`]
          : []
      )
    )
    assert.deepStrictEqual(names, [
      "call find_flight",
      "response find_flight",
      "call book",
      "response book",
      "call email",
      "call sms",
      "response email",
      "response sms"
    ])
    const withIds = GoogleFormat.encode(trajectory, { toolCallIds: true })
    assert.isTrue(Either.isLeft(withIds) && withIds.left._tag === "UnsupportedBlock")
    assert.isTrue(Either.isRight(GoogleFormat.encode(trajectory, { toolCallIds: true, reusedToolCallIds: "rename" })))
  })

  it("chat formats keep ids as they are (the API pairs a tool message with the call before it)", () => {
    const messages = Either.getOrThrow(OpenAiFormat.encode(trajectory))
    assert.strictEqual(messages.filter((m) => m.role === "tool").length, 4)
  })
})
