// A CommonJS consumer of the installed package: `import` here compiles to `require()`, which loads
// the ES module build (Node ^20.19 or >=22.12). Type-checked with module nodenext, run with node.
import * as Either from "effect/Either"
import * as Match from "effect/Match"
import * as assert from "node:assert"
import type { ConversionError } from "openreward-effect"
import { Format, Message } from "openreward-effect"
import { handlers } from "./handlers.cjs"

const conversation = [Message.system("Be brief."), Message.user("Hi")]
const openai = Either.getOrThrow(Format.encode("openai", conversation))
assert.deepStrictEqual(openai, [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }])

const bad = Format.read("canonical", [{ role: "assistant", blocks: [{ type: "video" }] }])
assert.ok(Either.isLeft(bad))
const describe = (error: ConversionError.ConversionError): string =>
  Match.value(error).pipe(Match.tagsExhaustive(handlers))
assert.match(describe(bad.left), /^(UnknownBlockType|MalformedInput)/)
console.log("cjs consumer ok")
