import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { Block, Message } from "openreward-effect"

describe("Block", () => {
  it("encodes with the reference key order and defaults", () => {
    const encoded = Schema.encodeSync(Message.Message)(
      Message.assistant([Block.reasoning("hm"), Block.toolCall("t1", "f", { a: 1 })])
    )
    assert.strictEqual(
      JSON.stringify(encoded),
      "{\"role\":\"assistant\",\"blocks\":[{\"text\":\"hm\",\"signature\":null,\"detail\":null,\"type\":\"reasoning\"},{\"id\":\"t1\",\"name\":\"f\",\"input\":{\"a\":1},\"detail\":null,\"type\":\"tool_call\"}],\"detail\":null}"
    )
  })
})
