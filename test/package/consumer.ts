// A strict ESM consumer of the installed package (module nodenext, exactOptionalPropertyTypes,
// skipLibCheck off): converts a conversation, matches every conversion error exhaustively, and uses
// the throwing forms of openreward-effect/Throwing.
// scripts/test-package.sh copies this file into an empty project with only openreward-effect and
// effect installed, and writes handlers.ts from the package's own `ConversionError.tags`.
import * as Either from "effect/Either"
import * as Match from "effect/Match"
import * as assert from "node:assert"
import { Block, ConversionError, Format, Message } from "openreward-effect"
import * as Throwing from "openreward-effect/Throwing"
import { handlers } from "./handlers.js"

const conversation = [
  Message.user("What's the weather in Paris?"),
  Message.assistant([Block.reasoning("Need the tool."), Block.toolCall("call_1", "weather", { city: "Paris" })]),
  Message.user([Block.toolResult("call_1", "18 C")])
]

const anthropic = Either.getOrThrow(Format.encode("anthropic", conversation))
assert.deepStrictEqual(anthropic.messages.map((m) => m.role), ["user", "assistant", "user"])

const describe = (error: ConversionError.ConversionError): string =>
  Match.value(error).pipe(Match.tagsExhaustive(handlers))

const google = Format.encode("google", conversation)
assert.ok(Either.isLeft(google))
assert.strictEqual(describe(google.left), "UnsupportedBlock at message 1")

const back = Format.convert({ role: "user", content: 1 }, { from: "openai", to: "canonical" })
assert.ok(Either.isLeft(back) && ConversionError.isConversionError(back.left))
assert.match(describe(back.left), /^MalformedInput/)
// The throwing forms need nothing but effect either, and throw the tagged error itself.
assert.deepStrictEqual(Throwing.encodeOrThrow("openai", [Message.user("Hi")]), [{ role: "user", content: "Hi" }])
assert.throws(
  () => Throwing.decodeOrThrow("openai", [{ role: "user", content: 1 }]),
  (e: unknown) => ConversionError.isConversionError(e) && describe(e).startsWith("MalformedInput")
)

console.log("esm consumer ok:", ConversionError.tags.length, "error tags matched")
